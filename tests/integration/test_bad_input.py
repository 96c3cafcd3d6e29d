"""Bad seeds fail fast in admission with a non-retryable error naming the file and field; no
later stage runs and the store, the frozen tasks and the publications stay untouched."""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ApplicationError

from contracts.payloads.common import TaskProductionInput
from contracts.payloads.packaging import ProductionResult
from contracts import queues
from tests.bad_seeds import CASES
from tests.conftest import activity_attempts

pytestmark = [pytest.mark.temporal]


@pytest.mark.parametrize("breaker,file,field", CASES, ids=[c[0].__name__ for c in CASES])
async def test_bad_seed_fails_fast_and_touches_nothing(
        breaker, file, field, temporal_env, workers, settings, store, seed_copy):
    seed = seed_copy("table-model")
    breaker(seed)
    before = (store.count(), _published(settings))
    handle, failure, attempts = await produce_failing(temporal_env, f"bad-{breaker.__name__}", seed)
    assert attempts and set(attempts) == {1}  # fails fast: no retries of a bad seed

    err = failure.value.cause
    assert isinstance(err, ApplicationError) and err.non_retryable
    message = str(err)
    assert "stage 02-admission failed" in message
    assert file in message and field in message, message

    progress = await handle.query("progress")
    assert progress["stages"]["02-admission"] == "failed"
    assert all(v == "pending" for k, v in progress["stages"].items() if k != "02-admission")
    assert (store.count(), _published(settings)) == before
    history = await handle.fetch_history()
    children_started = [e for e in history.events if e.HasField(
        "start_child_workflow_execution_initiated_event_attributes")]
    assert len(children_started) == 1  # admission only: no later stage started


async def produce_failing(temporal_env, wid: str, seed: Path):
    """Submit `seed`; return the handle, the failure (pytest's ExceptionInfo) and the attempt
    numbers of every activity the production and its stages started (from their histories:
    "no retry" is read from events, never from how long it took on a loaded machine)."""
    handle = await temporal_env.client.start_workflow(
        "TaskProduction", TaskProductionInput(seed=str(seed)), id=wid,
        task_queue=queues.CONTROL, result_type=ProductionResult)
    with pytest.raises(WorkflowFailureError) as failure:
        await handle.result()
    return handle, failure, await activity_attempts(temporal_env.client, wid)


def _published(settings) -> tuple[int, int]:
    """Frozen task versions and publications in the object store."""
    objects = settings.objects()
    return (len(objects.list("tasks/")),
            len([k for k in objects.list("publications/") if k.endswith("/publication.json")]))


def solution_raises(seed: Path) -> None:
    (seed / "draft" / "solution" / "solve.py").write_text(
        "import bpy\n\nbpy.ops.mesh.primitive_cube_add()\nraise KeyError('Tabletop')\n")


def build_script_raises(seed: Path) -> None:
    script = seed / "materials" / "build_reference.py"  # kept whole: the ledger cites it
    script.write_text(script.read_text() + "\n1 / 0\n")


AUTHOR_CASES = [(solution_raises, "solution/solve.py", "KeyError"),
                (build_script_raises, "materials/build_reference.py", "ZeroDivisionError")]


@pytest.mark.blender
@pytest.mark.parametrize("breaker,file,exception", AUTHOR_CASES, ids=[c[0].__name__ for c in AUTHOR_CASES])
async def test_an_authors_broken_script_fails_authoring_fast(
        breaker, file, exception, temporal_env, workers, settings, seed_copy):
    """Not infrastructure: one attempt, a named non-retryable AuthorScriptFailed in 03-authoring,
    counted as an author failure; nothing is frozen or published."""
    seed = seed_copy("table-model")
    breaker(seed)
    before = _published(settings)
    wid = f"author-{breaker.__name__}"
    handle, failure, attempts = await produce_failing(temporal_env, wid, seed)
    assert attempts and set(attempts) == {1}  # one attempt each, no infra retries with backoff

    message = str(failure.value.cause)
    assert "stage 03-authoring failed" in message and file in message and exception in message, message
    chain, err = [], failure.value.cause
    while err is not None:
        chain.append(err)
        err = err.cause
    assert any(isinstance(e, ApplicationError) and e.type == "AuthorScriptFailed" and e.non_retryable
               for e in chain), chain
    progress = await handle.query("progress")
    assert progress["stages"]["03-authoring"] == "failed" and progress["failures"]["author"] == 1
    assert progress["stages"]["04-trial-solves"] == "pending"
    assert _published(settings) == before
    history = await temporal_env.client.get_workflow_handle(f"{wid}.03-authoring").fetch_history()
    retried = [e for e in history.events if e.HasField("activity_task_started_event_attributes")
               and e.activity_task_started_event_attributes.attempt > 1]
    assert not retried  # the author's mistake was never retried
