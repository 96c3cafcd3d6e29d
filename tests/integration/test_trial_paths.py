"""The trial path beyond the scripted happy case: a draft script that kills Blender is the
author's failure (non-retryable, docs/failures.md); an infrastructure exception is retried by
Temporal, then reported with reward null — never a 0; an agent that runs out of time is still a
graded attempt, flagged `timed_out`; a model policy goes through the same path."""

from __future__ import annotations

import dataclasses

import pytest
import pytest_asyncio
from temporalio.api.enums.v1 import RetryState
from temporalio.exceptions import ApplicationError

from activities.errors import AUTHOR_SCRIPT_FAILED
from activities.evidence import EvidenceActivities
from activities.trial_backends import HarborSandboxBackend, TrialInfraError
from activities.trials import TrialActivities
from contracts import queues
from contracts.payloads import (AuthoringResult, RenderEvidenceInput, TrialOutcome, TrialRequest,
                                TrialSolvesInput, TrialSolvesResult)
from tests.adversarial.sandbox_helpers import requires_landlock, sandbox_kwargs
from tests.conftest import assemble_seed

pytestmark = [pytest.mark.blender, pytest.mark.temporal, requires_landlock]

CRASH = "private/calibration/faults/crash.py"  # Blender dies mid-solve
HANG = "private/calibration/faults/hang.py"  # the solver never finishes
ABSENT = "private/calibration/faults/absent.py"  # not in the package: the worker cannot start it
FAULT_SCRIPTS = {CRASH: b"import os\nos._exit(3)\n", HANG: b"import time\ntime.sleep(120)\n"}


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def package(store, project_root):
    """The table-model task package, plus two fault scripts only these tests use."""
    assembled = await assemble_seed(store, project_root / "seeds" / "table-model")
    entries = store.tree_entries(assembled.task_package)
    for rel, data in FAULT_SCRIPTS.items():
        ref = store.put_bytes(data)
        entries[rel] = {"sha256": ref.sha256, "size": ref.size}
    assembled.task_package = store.put_tree_manifest(entries)
    return assembled


async def test_draft_script_that_kills_blender_is_the_authors_failure(store, package, tmp_path):
    trials = TrialActivities(store, HarborSandboxBackend(sandbox_kwargs(tmp_path / "slots")))
    with pytest.raises(ApplicationError) as raised:
        await trials.run_trial(TrialRequest(package.task_package, package.identity, f"script:{CRASH}", "crash-1", "pilot"))
    assert raised.value.type == AUTHOR_SCRIPT_FAILED and raised.value.non_retryable
    assert raised.value.message.startswith(f"{CRASH}: Blender host exited with code 3")


async def test_worker_that_cannot_start_the_agent_is_infra(store, package, tmp_path):
    trials = TrialActivities(store, HarborSandboxBackend(sandbox_kwargs(tmp_path / "slots")))
    with pytest.raises(TrialInfraError, match="script_path not found"):
        await trials.run_trial(TrialRequest(package.task_package, package.identity, f"script:{ABSENT}", "absent-1", "pilot"))


async def test_agent_timeout_is_a_graded_attempt(store, package, tmp_path):
    backend = HarborSandboxBackend(sandbox_kwargs(tmp_path / "slots"), agent_timeout_sec=6)
    outcome = await TrialActivities(store, backend).run_trial(
        TrialRequest(package.task_package, package.identity, f"script:{HANG}", "hang-1", "evaluation"))
    assert outcome.timed_out and outcome.exception is None
    assert (outcome.failure.kind, outcome.failure.type) == ("solver", "AgentTimeout")
    assert outcome.report is not None  # graded: nothing was delivered
    assert store.get_json(outcome.report)["rule_score"] == 0.0


async def test_workflow_retries_then_reports_the_infra_failure(temporal_env, workers, package, store,
                                                               settings, tmp_path):
    # the reference deliverable's renders, as stage 03 makes them: nop is graded with its VL part
    oracle = await TrialActivities(store, HarborSandboxBackend(sandbox_kwargs(tmp_path / "slots"))).run_trial(
        TrialRequest(package.task_package, package.identity, "oracle", "reference-1", "authoring"))
    rendered = await EvidenceActivities(store, settings.var / "cache" / "evidence").render_evidence(
        RenderEvidenceInput(oracle.delivery, package.grading.judge_config))
    grading = dataclasses.replace(package.grading, reference_evidence=rendered.evidence)
    nop = TrialRequest(package.task_package, package.identity, "nop", "baseline", "authoring")
    authoring = AuthoringResult("table-model", package.task_package, package.identity,
                                grading, _placeholder(nop), _placeholder(nop), [])
    result = await temporal_env.client.execute_workflow(
        "TrialSolves", TrialSolvesInput(authoring, ["nop", f"script:{ABSENT}"]),
        id="it-trial-solves-crash", task_queue=queues.CONTROL, result_type=TrialSolvesResult)
    by_policy = {o.policy: o for o in result.trials}
    crashed = by_policy[f"script:{ABSENT}"]
    assert crashed.reward is None and crashed.success is None
    assert crashed.exception and "TrialInfraError" in crashed.exception["message"] + crashed.exception["type"]
    assert crashed.failure.kind == "infra" and crashed.failure.evidence["retries_exhausted"]
    assert by_policy["nop"].reward == 0.0 and by_policy["nop"].exception is None
    assert by_policy["nop"].vl is not None  # blender-70-30: judged (A-gate 0: no table at all)
    assert any("infrastructure failure" in f for f in result.findings)

    history = await temporal_env.client.get_workflow_handle("it-trial-solves-crash").fetch_history()
    failed = [e for e in history.events if e.HasField("activity_task_failed_event_attributes")]
    assert failed and failed[-1].activity_task_failed_event_attributes.retry_state == \
        RetryState.RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED  # retried, then reported


def _placeholder(req: TrialRequest) -> TrialOutcome:
    return TrialOutcome(req.trial_id, req.policy, req.stage, 1, 0.0, False, "vv2-x")


async def test_model_policy_runs_through_the_same_trial_path(store, package, tmp_path, monkeypatch,
                                                            project_root):
    """`llm`: the LLM agent's loop runs in the worker against the (FAKE) endpoint; only its tool
    calls reach Blender in the sandbox; the delivery is graded like any other."""
    from tests.fakes.openai_server import FakeOpenAIServer, final, tool_call

    solve = (project_root / "seeds" / "table-model" / "draft" / "solution" / "solve.py").read_text()
    with FakeOpenAIServer([tool_call("execute_blender_code", {"code": solve}), final("Table modelled.")]) as fake:
        monkeypatch.setenv("ARKEVO_LLM_BASE_URL", fake.base_url)
        monkeypatch.setenv("ARKEVO_LLM_MODEL", "fake-model")
        monkeypatch.setenv("ARKEVO_LLM_API_KEY", "sk-fake-do-not-record")
        trials = TrialActivities(store, HarborSandboxBackend(sandbox_kwargs(tmp_path / "slots")))
        outcome = await trials.run_trial(TrialRequest(package.task_package, package.identity, "llm", "llm-1", "evaluation"))
    assert store.get_json(outcome.report)["rule_score"] == 1.0 and not outcome.timed_out
    assert len(fake.requests) == 2  # one tool call, one final answer


async def test_missing_vl_score_is_a_recorded_null_not_a_zero_or_a_retry(store, package, tmp_path):
    """table-model is graded under blender-70-30: scored without its VL judgement, the total is
    null with the reason — never a silently renormalised rule score."""
    from activities.scoring import ScoringActivities
    from contracts.payloads import ScoreTrialInput

    assert package.grading.uses_vl and package.grading.profile["profile_id"] == "blender-70-30"
    trials = TrialActivities(store, HarborSandboxBackend(sandbox_kwargs(tmp_path / "slots")))
    outcome = await trials.run_trial(TrialRequest(package.task_package, package.identity, "oracle",
                                                  "vl-missing-1", "evaluation"))
    scored = ScoringActivities(store).score_trial(ScoreTrialInput(package.grading, outcome, None))
    assert scored.reward is None and scored.exception is None and scored.null_reason
    assert store.get_json(scored.score)["rule_score"] == 1.0
