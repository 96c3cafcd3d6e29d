"""Bad seeds fail fast in admission with a non-retryable error naming the file and field; no
later stage runs and the store, the frozen tasks and the publications stay untouched."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ApplicationError

from contracts.payloads.common import TaskProductionInput
from contracts.payloads.packaging import ProductionResult
from contracts import queues
from tests.conftest import activity_attempts

pytestmark = [pytest.mark.temporal]


def edit_json(path: Path, change) -> None:
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc, indent=2))


def malformed_seed_json(seed: Path) -> None:
    (seed / "seed.json").write_text('{"seed_id": "table-model", ')


def unknown_workflow_id(seed: Path) -> None:
    edit_json(seed / "seed.json", lambda d: d.update(workflow_primary="MOD-99"))


def weights_not_one(seed: Path) -> None:
    edit_json(seed / "draft" / "task.json",
              lambda d: d["criteria"][0].update(weight=d["criteria"][0]["weight"] + 0.25))


def agent_weight_nonzero(seed: Path) -> None:
    edit_json(seed / "draft" / "task.json",
              lambda d: d["verification"]["weights"].update(agent=0.1))


def missing_material(seed: Path) -> None:
    doc = json.loads((seed / "seed.json").read_text())
    os.remove(seed / doc["materials"][0]["path"])


def escaping_material(seed: Path) -> None:
    edit_json(seed / "seed.json",
              lambda d: d["materials"][0].update(path="../../../etc/passwd"))


def requirement_nowhere_public(seed: Path) -> None:
    edit_json(seed / "draft" / "task.json",
              lambda d: d["criteria"][0].update(requirement_id="REQ-NOWHERE-PUBLIC"))


def rubric_unknown_method(seed: Path) -> None:
    for name in ("task.json", "rubric.json"):  # the same method in both: only the library lacks it
        edit_json(seed / "draft" / name, lambda d: d["criteria"][0].update(method="objects_present"))


def rubric_param_wrong_type(seed: Path) -> None:
    edit_json(seed / "draft" / "rubric.json",
              lambda d: d["criteria"][2]["params"].update(tolerance="5mm"))


def rubric_param_missing(seed: Path) -> None:
    edit_json(seed / "draft" / "rubric.json", lambda d: d["criteria"][5]["params"].pop("others"))


def task_probe_shadows_builtin(seed: Path) -> None:
    (seed / "draft" / "task_probes.py").write_text(
        "from probe_core import primitive\n\n\n@primitive(required=('object',), params={'object': 'name'})\n"
        "def object_exists(probe, p):\n    return None\n")


def weights_disagree_with_profile(seed: Path) -> None:
    edit_json(seed / "draft" / "task.json",  # still sums to 1, but blender-70-30 weighs 0.7 / 0.3
              lambda d: d["verification"]["weights"].update(rule=0.8, vl=0.2))


def vl_criterion_names_no_question(seed: Path) -> None:
    edit_json(seed / "draft" / "task.json", lambda d: d["criteria"][10].update(method="judge_z"))


def judge_questions_missing(seed: Path) -> None:
    os.remove(seed / "draft" / "judge.json")


def older_blender(seed: Path) -> None:
    for declared in (seed / "seed.json", seed / "draft" / "task.json"):  # the draft agrees with its seed
        edit_json(declared, lambda d: d["software"].update(version="4.0"))


def accepted_range_without_the_runtime(seed: Path) -> None:
    for declared in (seed / "seed.json", seed / "draft" / "task.json"):
        edit_json(declared, lambda d: d["software"].update(version="4.0", accepts={"min": "4.0", "max": "4.2"}))


CASES = [
    (malformed_seed_json, "seed.json", "<root>"),
    # the Blender the seed declares against the runtime's (BlenderVersionMismatch)
    (older_blender, "seed.json", "software.version: the seed declares Blender 4.0; this runtime is Blender 5.2"),
    (accepted_range_without_the_runtime, "seed.json", "software.accepts: the seed accepts Blender 4.0 to 4.2"),
    (unknown_workflow_id, "seed.json", "workflow_primary"),
    (weights_not_one, "task.json", "weight"),
    (agent_weight_nonzero, "task.json", "verification.weights.agent"),
    (missing_material, "seed.json", "materials[0].path"),
    (escaping_material, "seed.json", "materials[0].path"),
    (requirement_nowhere_public, "task.json", "criteria[0].requirement_id"),
    # the rubric against the probe library (field, then the criterion id and method)
    (rubric_unknown_method, "rubric.json", "criteria[0].method: C01: unknown probe method"),
    (rubric_param_wrong_type, "rubric.json", 'criteria[2].params.tolerance: C03 (dimensions): expected number'),
    (rubric_param_missing, "rubric.json", "criteria[5].params.others: C06 (parts_touch): missing"),
    (task_probe_shadows_builtin, "task_probes.py", "line 4: rule method 'object_exists' is a built-in"),
    # the VL channel and the scoring profile
    (weights_disagree_with_profile, "task.json", "scoring_profile: task table-model: verification.weights.rule=0.8"),
    (vl_criterion_names_no_question, "task.json", "criteria[10].method (V01): 'judge_z' names no judge question"),
    (judge_questions_missing, "judge.json", "weights the VL channel"),
]


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
