"""The trial path beyond the scripted happy case: Blender dying under the solver is an
infrastructure exception (retried by Temporal, then reported with reward null — never a 0); an
agent that runs out of time is still a graded attempt, flagged `timed_out`; a model policy goes
through the same path."""

from __future__ import annotations

import pytest
import pytest_asyncio
from temporalio.api.enums.v1 import RetryState

from activities.authoring import AssembleInput, AuthoringActivities, BuildWorkspaceInput
from activities.trial_backends import HarborSandboxBackend, TrialInfraError
from activities.trials import TrialActivities
from contracts.payloads import AuthoringResult, TrialRequest, TrialSolvesResult
from contracts.seed_check import check_seed_dir
from tests.adversarial.sandbox_helpers import requires_landlock, sandbox_kwargs
from workers import queues
from workflows.trial_solves import TrialSolvesInput

pytestmark = [pytest.mark.blender, pytest.mark.temporal, requires_landlock]

CRASH = "private/calibration/faults/crash.py"  # Blender dies mid-solve
HANG = "private/calibration/faults/hang.py"  # the solver never finishes
FAULT_SCRIPTS = {CRASH: b"import os\nos._exit(3)\n", HANG: b"import time\ntime.sleep(120)\n"}


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def package(store, project_root):
    """The table-model task package, plus two fault scripts only these tests use."""
    seed = project_root / "seeds" / "table-model"
    checked = check_seed_dir(seed)
    tree = store.put_tree(seed, sorted({*checked.material_paths, *checked.draft_files, "seed.json"}))
    authoring = AuthoringActivities(store)
    build = await authoring.build_workspace(
        BuildWorkspaceInput(tree, checked.reference_project, checked.manifest.start_mode))
    pkg = authoring.assemble_task_package(AssembleInput(tree, build))
    entries = store.tree_entries(pkg)
    for rel, data in FAULT_SCRIPTS.items():
        ref = store.put_bytes(data)
        entries[rel] = {"sha256": ref.sha256, "size": ref.size}
    return store.put_tree_manifest(entries)


async def test_blender_crash_is_an_infra_error_not_a_zero(store, package, tmp_path):
    trials = TrialActivities(store, HarborSandboxBackend(sandbox_kwargs(tmp_path / "slots")))
    with pytest.raises(TrialInfraError):
        await trials.run_trial(TrialRequest(package, f"script:{CRASH}", "crash-1", "pilot"))


async def test_agent_timeout_is_a_graded_attempt(store, package, tmp_path):
    backend = HarborSandboxBackend(sandbox_kwargs(tmp_path / "slots"), agent_timeout_sec=6)
    outcome = await TrialActivities(store, backend).run_trial(
        TrialRequest(package, f"script:{HANG}", "hang-1", "evaluation"))
    assert outcome.timed_out and outcome.exception is None
    assert outcome.reward == 0.0 and outcome.success is False  # graded: nothing was delivered
    assert outcome.report is not None


async def test_workflow_retries_then_reports_the_infra_failure(temporal_env, workers, package):
    nop = TrialRequest(package, "nop", "baseline", "authoring")
    authoring = AuthoringResult("table-model", package, 0.7, {}, _placeholder(nop), [])
    result = await temporal_env.client.execute_workflow(
        "TrialSolves", TrialSolvesInput(authoring, ["nop", f"script:{CRASH}"]),
        id="it-trial-solves-crash", task_queue=queues.CONTROL, result_type=TrialSolvesResult)
    by_policy = {o.policy: o for o in result.trials}
    crashed = by_policy[f"script:{CRASH}"]
    assert crashed.reward is None and crashed.success is None
    assert crashed.exception and "TrialInfraError" in crashed.exception["message"] + crashed.exception["type"]
    assert by_policy["nop"].reward == 0.0 and by_policy["nop"].exception is None
    assert any("infrastructure failure" in f for f in result.findings)

    history = await temporal_env.client.get_workflow_handle("it-trial-solves-crash").fetch_history()
    failed = [e for e in history.events if e.HasField("activity_task_failed_event_attributes")]
    assert failed and failed[-1].activity_task_failed_event_attributes.retry_state == \
        RetryState.RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED  # retried, then reported


def _placeholder(req: TrialRequest):
    from contracts.payloads import TrialOutcome
    return TrialOutcome(req.trial_id, req.policy, req.stage, 1, 0.0, False, "vv1-x")


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
        outcome = await trials.run_trial(TrialRequest(package, "llm", "llm-1", "evaluation"))
    assert outcome.reward == 1.0 and outcome.success and not outcome.timed_out
    assert len(fake.requests) == 2  # one tool call, one final answer


async def test_missing_vl_score_is_a_recorded_null_not_a_zero_or_a_retry(store, package, tmp_path):
    """A task weighting the VL channel, graded by the rule probe alone: total null, with reason."""
    entries = store.tree_entries(package)
    task = store.get_json(store.tree_file(package, "tests/task.json"))
    task["verification"]["weights"] = {"rule": 0.7, "vl": 0.3, "agent": 0.0}
    task["criteria"].append({"id": "V01", "requirement_id": task["criteria"][0]["requirement_id"],
                             "channel": "vl", "method": "vl_judge", "weight": 1.0, "core": False,
                             "description": "looks like a table"})
    ref = store.put_json(task)
    entries["tests/task.json"] = {"sha256": ref.sha256, "size": ref.size}
    weighted = store.put_tree_manifest(entries)

    trials = TrialActivities(store, HarborSandboxBackend(sandbox_kwargs(tmp_path / "slots")))
    outcome = await trials.run_trial(TrialRequest(weighted, "oracle", "vl-missing-1", "evaluation"))
    assert outcome.reward is None and outcome.exception is None and not outcome.timed_out
    report = store.get_json(outcome.report)
    assert report["rule_score"] == 1.0 and report["reward_null_reason"]
