"""The trial path beyond the scripted happy case: a draft script that kills Blender is the
author's failure (non-retryable, docs/failures.md); a worker that cannot start the agent is
infrastructure; an agent that runs out of time is still a graded attempt, flagged `timed_out`;
a model policy goes through the same path. (An infrastructure failure retried by Temporal and
then reported with reward null, never a 0, is checked on a real stack by the evaluation
campaign in test_dataset_production.py.)"""

from __future__ import annotations

import pytest
import pytest_asyncio
from temporalio.exceptions import ApplicationError

from contracts.errors import AUTHOR_SCRIPT_FAILED
from activities.trial_backends import HarborSandboxBackend, TrialInfraError
from activities.trials import TrialActivities
from contracts.payloads.trials import TrialRequest
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
    from contracts.payloads.trials import ScoreTrialInput

    assert package.grading.uses_vl and package.grading.profile["profile_id"] == "blender-70-30"
    trials = TrialActivities(store, HarborSandboxBackend(sandbox_kwargs(tmp_path / "slots")))
    outcome = await trials.run_trial(TrialRequest(package.task_package, package.identity, "oracle",
                                                  "vl-missing-1", "evaluation"))
    scored = ScoringActivities(store).score_trial(ScoreTrialInput(package.grading, outcome, None))
    assert scored.reward is None and scored.exception is None and scored.null_reason
    assert store.get_json(scored.score)["rule_score"] == 1.0


async def test_the_verifier_renders_the_evidence_the_vl_grading_then_finds(store, package, tmp_path,
                                                                          monkeypatch):
    """A trial of a task that judges its evidence renders it in the verifier sandbox, after the
    probe and in its Blender (verifiers/probe_and_render.py): the worker takes it into its cache
    (checked as any sandboxed render), the VL grading's render_evidence then starts nothing, and
    the files are byte for byte what the gpu worker's own sandboxed render makes."""
    from activities.evidence import EvidenceActivities
    from blender import runner
    from contracts.payloads.vl_grading import RenderEvidenceInput
    from sandbox.isolation.settings import SandboxSettings

    kwargs = sandbox_kwargs(tmp_path / "slots")
    settings = SandboxSettings.split_kwargs(dict(kwargs))[0]
    evidence = EvidenceActivities(store, tmp_path / "cache", settings)
    trials = TrialActivities(store, HarborSandboxBackend(kwargs), evidence=evidence.renderer)
    def oracle(n: int) -> TrialRequest:
        return TrialRequest(package.task_package, package.identity, "oracle", f"prefetch-{n}", "evaluation",
                            keep_evidence=True, judge_config=package.grading.judge_config)

    outcome = await trials.run_trial(oracle(1))
    assert store.get_json(outcome.report)["rule_score"] == 1.0
    assert "verifier/evidence/manifest.json" in store.tree_entries(outcome.evidence)
    counters = evidence.renderer.cache.counters
    assert (counters.prerendered, counters.renders, counters.render_processes) == (1, 0, 0)

    async def no_blender(*args, **kwargs):
        raise AssertionError("a cache hit started a sandbox")

    req = RenderEvidenceInput(outcome.delivery, package.grading.judge_config)
    with monkeypatch.context() as patched:
        patched.setattr(runner, "run_sandboxed_script", no_blender)
        found = await evidence.render_evidence(req)
    assert found.cache_hit and found.error is None
    fresh = await EvidenceActivities(store, tmp_path / "cache-fresh", settings).render_evidence(req)
    assert not fresh.cache_hit and fresh.evidence == found.evidence  # manifest and every file

    # The same delivery again (a scripted policy's repeat): the cache holds it, so the verifier
    # is not asked to render it (the job leaves tests/ before the verifier reads it).
    again = await trials.run_trial(oracle(2))
    assert store.get_json(again.report)["rule_score"] == 1.0
    verifier = {rel for rel in store.tree_entries(again.evidence) if rel.startswith("verifier/")}
    assert "verifier/report.json" in verifier and not any("evidence" in rel for rel in verifier)
    # Without a judge config (a rule-only grade) the verifier renders nothing either.
    plain = await trials.run_trial(TrialRequest(package.task_package, package.identity, "nop", "prefetch-3",
                                                "evaluation", keep_evidence=True))
    assert not any("verifier/evidence" in rel for rel in store.tree_entries(plain.evidence))
    assert counters.prerendered == 1
