"""Replay guard: a recorded history of every workflow type must replay against today's workflow
code. A change that alters the commands a workflow issues for the same history breaks running
workflows on upgrade: it fails here (non-determinism), and needs a `workflow.patched()` branch
or a new workflow type instead. With worker versioning on (docs/operations.md, "Worker
versioning and shutdown") this is what makes an auto-upgrade type safe to move to new code
mid-run; pinned types never move, but the unversioned dev stack (`make up` after a pull) and a
rollback still replay them.

Where the histories come from (all with mocked activities: no Blender, no model, seconds):

* `task-production*.json` (TaskProduction and its six stages): `test_task_production_mocked.py`
  with ARKEVO_RECORD_HISTORIES=1.
* every other type (and `evaluation-campaign.breaker`, EvaluationCampaign's preflight and
  circuit breaker path; `evaluation-campaign.smoke-beside` and `.smoke-failed`, its smoke trial
  beside the first trials, passed and failed; `campaign-recovery.preflight`, CampaignRecovery's
  preflight path):
  `python -m tests.orchestration.test_replay --record [NAME ...]`, which runs the stand-in
  setups of the other `*_mocked.py` modules (and TaskDerivation's, below) against real workflow
  code on a dev server of its own and writes the histories named in `RECORDED`. It overwrites
  them: record again only when a history must change on purpose, in the change that needs it.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from temporalio import activity, workflow
from temporalio.client import WorkflowHistory
from temporalio.exceptions import ApplicationError
from temporalio.worker import Replayer

from contracts.payloads.admission import PipelineDefaults
from contracts.payloads.common import BlobRef, TaskProductionInput
from contracts.payloads.derivation import (CandidateRequest, CandidateSet, DerivationRecordInput,
                                           NoveltyInput, NoveltyVerdict, SeedCandidate, SourceTask,
                                           TaskPattern, WriteSeedInput)
from contracts.payloads.model_authoring import ModelUsage
from contracts.payloads.packaging import ProductionResult, PublicationResult
from workers.pools import WORKFLOWS

HERE = Path(__file__).resolve().parent / "histories"
HISTORIES = sorted(HERE.glob("*.json"))
# Recorded by `--record`: file stem -> the workflow id it ran under (replay needs the id: child
# ids derive from it). The task-production*.json files are named by their ids.
RECORDED = {
    "vl-grading": "record-vl.04-trial-solves/oracle.vl",
    "model-authoring": "record-model.03-authoring.model",
    "check-delivery": "record-model.03-authoring.model.round-2",
    "dataset-production.continued": "record-dataset",  # the first run, ending in continue-as-new
    "dataset-production": "record-dataset",
    "task-derivation": "record-derivation",  # before lineage: each source read, then derived
    "task-derivation.lineage": "record-derivation-lineage",  # every source read first (patched)
    "evaluation-campaign": "record-campaign",
    # the preflight and a circuit breaker pause resumed by the signal (workflow.patched path)
    "evaluation-campaign.breaker": "campaign-record-breaker",
    # the smoke trial beside the first trials (workflow.patched path): passed, and failed
    # (the trials beside it cancelled)
    "evaluation-campaign.smoke-beside": "campaign-record-smoke-beside",
    "evaluation-campaign.smoke-failed": "campaign-pf-smoke",
    "campaign-trial": "campaign-t1.t1.alpha.llm-default.1",
    "campaign-recovery": "record-campaign-recovery",
    # the preflight before the reruns (workflow.patched path)
    "campaign-recovery.preflight": "campaign-rp-record-recover-1",
    "model-rate-budget": "model-rate-budget/record",
    "verifier-drift": "record-verifier-drift",
}


def _load(path: Path) -> WorkflowHistory:
    return WorkflowHistory.from_json(RECORDED.get(path.stem, path.stem), path.read_text())


def _type_of(history: WorkflowHistory) -> str:
    return history.events[0].workflow_execution_started_event_attributes.workflow_type.name


def test_every_workflow_type_has_a_recorded_history():
    recorded = {_type_of(_load(p)) for p in HISTORIES}
    expected = {workflow._Definition.must_from_class(wf).name for wf in WORKFLOWS}
    assert expected <= recorded, f"no recorded history for {sorted(expected - recorded)}"
    names = {p.stem for p in HISTORIES}
    assert {"task-production", "task-production.03-authoring", "task-production.05-review",
            "task-production.06-evaluation", *RECORDED} <= names, names


@pytest.mark.parametrize("path", HISTORIES, ids=lambda p: p.stem)
async def test_recorded_history_replays_on_current_code(path):
    result = await Replayer(workflows=WORKFLOWS).replay_workflow(_load(path), raise_on_replay_failure=False)
    assert result.replay_failure is None, f"{path.name}: {result.replay_failure}"


@workflow.defn(name="Admission", sandboxed=False)
class ChangedAdmission:
    """Stage 02 as a careless edit would leave it: a timer before the one activity."""

    @workflow.run
    async def run(self, req) -> None:
        await workflow.sleep(timedelta(seconds=1))
        await workflow.execute_activity("admit_seed", req, start_to_close_timeout=timedelta(minutes=5))


async def test_a_non_deterministic_change_fails_replay():
    result = await Replayer(workflows=[ChangedAdmission]).replay_workflow(
        _load(HERE / "task-production.02-admission.json"), raise_on_replay_failure=False)
    assert result.replay_failure is not None
    assert "nondetermin" in f"{type(result.replay_failure).__name__} {result.replay_failure}".lower()


# --- recording (python -m tests.orchestration.test_replay --record) ----------------------------------

async def _write(env, name: str, run_id: str | None = None) -> None:
    history = await env.client.get_workflow_handle(RECORDED[name], run_id=run_id).fetch_history()
    (HERE / f"{name}.json").write_text(json.dumps(json.loads(history.to_json()), indent=1))
    print(f"recorded {name}.json ({len(history.events)} events, {_type_of(history)})")


async def _children(client, wid: str) -> list[str]:
    history = await client.get_workflow_handle(wid).fetch_history()
    return [e.start_child_workflow_execution_initiated_event_attributes.workflow_id
            for e in history.events if e.HasField("start_child_workflow_execution_initiated_event_attributes")]


async def _record_vl_grading(env) -> None:
    from tests.orchestration.test_task_production_mocked import Fakes, produce

    await produce(env, Fakes("blender-70-30"), "record-vl")
    assert RECORDED["vl-grading"] in await _children(env.client, "record-vl.04-trial-solves")
    await _write(env, "vl-grading")


async def _record_model_authoring(env) -> None:
    from tests.orchestration.test_model_authoring_mocked import AuthoringFakes
    from tests.orchestration.test_task_production_mocked import produce

    result, _ = await produce(env, AuthoringFakes([{"calibration": "fail"}, {}]), "record-model")
    assert result.publication.publication_id == "demo-task-r1", result
    await _write(env, "model-authoring")
    await _write(env, "check-delivery")


async def _record_dataset_production(env) -> None:
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from temporalio.worker import Worker

    from contracts import queues
    from contracts.payloads.datasets import DatasetProductionInput, DatasetProductionResult
    from tests.orchestration.test_dataset_production_mocked import SPEC, Fakes, FakeTaskProduction
    from workflows.dataset_production import DatasetProduction

    fakes, wid = Fakes(), RECORDED["dataset-production"]
    with ThreadPoolExecutor(8) as pool:
        async with Worker(env.client, task_queue=queues.CONTROL, workflows=[DatasetProduction, FakeTaskProduction]), \
                Worker(env.client, task_queue=queues.CPU, activities=fakes.activities(), activity_executor=pool):
            handle = await env.client.start_workflow(
                "DatasetProduction", DatasetProductionInput(spec=SPEC, continue_after=3), id=wid,
                task_queue=queues.CONTROL, result_type=DatasetProductionResult)
            result = await asyncio.wait_for(handle.result(), 60)
    assert result.runs == 2, result
    await _write(env, "dataset-production.continued", run_id=handle.first_execution_run_id)
    await _write(env, "dataset-production")


async def _record_campaign(env, tmp: Path) -> None:
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from temporalio.worker import Worker

    from activities.campaigns import CampaignActivities
    from storage.content import FilesystemStore
    from contracts import queues
    from contracts.payloads.campaigns import CampaignInput, CampaignResult, RecoveryInput
    from contracts.payloads.common import DatasetRef
    from storage.objects import FilesystemObjects
    from tests.campaign_support.publications import write_frozen_revision
    from tests.orchestration.test_evaluation_campaign_mocked import BROKEN, PROJECT, TASKS, Gpu
    from workflows.evaluation_campaign import CampaignRecovery, CampaignTrial, EvaluationCampaign

    objects, store = FilesystemObjects(tmp / "objects"), FilesystemStore(tmp / "store")
    write_frozen_revision(objects, store, "t", "r1", {"test": TASKS})
    gpu = Gpu(objects)
    campaigns = CampaignActivities(store, objects, PROJECT)
    cpu_acts = [campaigns.plan_campaign, campaigns.record_campaign_trial, campaigns.write_campaign_report,
                campaigns.plan_recovery, campaigns.finish_recovery, campaigns.record_preflight]
    req = CampaignInput("t1", mode="full", dataset=DatasetRef("t", "r1"), split="test",
                        caps={"gpu": 3, "llm": 1}, trial_attempts=2, bootstrap_samples=200)
    with ThreadPoolExecutor(8) as pool:
        run_trial, score_trial, check_endpoints, preflight = gpu.activities()
        async with Worker(env.client, task_queue=queues.CONTROL,
                          workflows=[EvaluationCampaign, CampaignTrial, CampaignRecovery]), \
                Worker(env.client, task_queue=queues.CPU, activities=[*cpu_acts, score_trial],
                       activity_executor=pool), \
                Worker(env.client, task_queue=queues.GPU, activities=[run_trial, check_endpoints, preflight],
                       activity_executor=pool, max_concurrent_activities=8):
            result: CampaignResult = await asyncio.wait_for(env.client.execute_workflow(
                "EvaluationCampaign", req, id=RECORDED["evaluation-campaign"], task_queue=queues.CONTROL,
                result_type=CampaignResult), 120)
            assert result.exceptions == [BROKEN], result
            gpu.outage = False
            await asyncio.wait_for(env.client.execute_workflow(
                "CampaignRecovery", RecoveryInput("t1", [BROKEN], "sandbox slot outage", "ops"),
                id=RECORDED["campaign-recovery"], task_queue=queues.CONTROL, result_type=CampaignResult), 60)
    assert RECORDED["campaign-trial"] in await _children(env.client, RECORDED["evaluation-campaign"])
    for name in ("evaluation-campaign", "campaign-trial", "campaign-recovery"):
        await _write(env, name)


# TaskDerivation's stand-ins (module level: the SDK resolves their annotations in this module).

def _ref(name: str) -> BlobRef:
    digest = (name.encode().hex() + "0" * 64)[:64]
    return BlobRef(f"objects/{digest[:2]}/{digest[2:]}", digest, 1)


@activity.defn(name="pipeline_defaults")
async def _pipeline_defaults() -> PipelineDefaults:
    return PipelineDefaults(["oracle", "nop"], ["oracle", "nop"], 2, 0.9, 0.2, "image-metric", 3, 0.6)


@activity.defn(name="read_source_task")
async def _read_source_task(source: str) -> SourceTask:
    return SourceTask(source, "table-model", _ref("summary"))


@activity.defn(name="extract_pattern")
async def _extract_pattern(source: SourceTask) -> TaskPattern:
    return TaskPattern(source.source_id, _ref("pattern"), ModelUsage("deriver", "fake", 1, 500, 80, 1.0))


@activity.defn(name="generate_candidates")
async def _generate_candidates(req: CandidateRequest) -> CandidateSet:
    candidates = [SeedCandidate(s, s.title(), _ref(f"files-{s}"), {"requirements": [s]})
                  for s in ("chair-model", "lamp-model", "table-model-2")]
    return CandidateSet(candidates, [{"seed_id": "broken", "reason": "seed.json: title: missing"}],
                        ModelUsage("deriver", "fake", 1, 900, 400, 2.0))


@activity.defn(name="measure_novelty")
async def _measure_novelty(req: NoveltyInput) -> list[NoveltyVerdict]:
    close = "table-model-2"
    return [NoveltyVerdict(c.seed_id, c.seed_id != close, {"source": {"combined": 0.9 if c.seed_id == close else 0.3}},
                           0.9 if c.seed_id == close else 0.3,
                           "too close to table-model" if c.seed_id == close else "")
            for c in req.candidates]


@activity.defn(name="write_derived_seed")
async def _write_derived_seed(req: WriteSeedInput) -> str:
    return f"/var/derived/{req.run}/{req.candidate.seed_id}"


@activity.defn(name="write_derivation_record")
async def _write_derivation_record(req: DerivationRecordInput) -> BlobRef:
    return _ref("derivation-record")


@workflow.defn(name="TaskProduction", sandboxed=False)
class DerivedProduction:
    """TaskDerivation's children while recording: chair-model publishes, lamp-model fails."""

    @workflow.run
    async def run(self, req: TaskProductionInput) -> ProductionResult:
        seed_id = req.seed.rsplit("/", 1)[-1]
        if seed_id == "lamp-model":
            raise ApplicationError("stage 05-review failed: calibration: defect:a scored 0.8",
                                   type="StageFailed", non_retryable=True)
        return ProductionResult(seed_id, seed_id, "v1-abc", PublicationResult(
            f"{seed_id}-r1", f"/pub/{seed_id}-r1", _ref("publication"), 3, "/h/e.json"), [], None)


async def _record_task_derivation(env, name: str = "task-derivation") -> None:
    """One source, three candidates (one published, one whose production fails, one
    near-duplicate) and one malformed candidate."""
    import asyncio

    from temporalio.worker import Worker

    from contracts import queues
    from contracts.payloads.derivation import DerivationInput, DerivationResult
    from workflows.derivation import TaskDerivationWorkflow

    async with Worker(env.client, task_queue=queues.CONTROL, workflows=[TaskDerivationWorkflow, DerivedProduction]), \
            Worker(env.client, task_queue=queues.CPU, activities=[
                _pipeline_defaults, _read_source_task, _measure_novelty, _write_derived_seed,
                _write_derivation_record]), \
            Worker(env.client, task_queue=queues.LLM, activities=[_extract_pattern, _generate_candidates]):
        result = await asyncio.wait_for(env.client.execute_workflow(
            "TaskDerivation", DerivationInput(["seeds/table-model"], tasks_per_seed=3, concurrency=1),
            id=RECORDED[name], task_queue=queues.CONTROL, result_type=DerivationResult), 60)
    assert sorted(t.status for t in result.tasks) == ["failed", "malformed", "near_duplicate", "published"], result
    await _write(env, name)


async def _record_task_derivation_lineage(env) -> None:
    """The same derivation on today's code: every source read before any model call."""
    await _record_task_derivation(env, "task-derivation.lineage")


async def _record_model_rate_budget(env) -> None:
    """Three callers' reservations at 60 a minute, burst 2; the bucket is left running (idle)."""
    from temporalio.worker import Worker

    from contracts import queues
    from modelapi.rate_budget import TemporalBudget
    from workflows.model_rate_budget import ModelRateBudget

    async with Worker(env.client, task_queue=queues.CONTROL, workflows=[ModelRateBudget]):
        budget = TemporalBudget(env.client, "record", rate_per_minute=60, burst=2)
        delays = [await budget.reserve() for _ in range(3)]
    assert delays[:2] == [0.0, 0.0] and 0 < delays[2] <= 1.0, delays
    await _write(env, "model-rate-budget")


async def _record_verifier_drift(env, tmp: Path) -> None:
    """Two tasks, one whose sample flips and whose first re-scoring is an infrastructure fault."""
    import asyncio

    from contracts import queues
    from contracts.payloads.common import DatasetRef
    from contracts.payloads.verifier_drift import VerifierDriftInput, VerifierDriftResult
    from tests.orchestration.test_verifier_drift_mocked import Gpu, revision_with_a_campaign, running

    objects, store = revision_with_a_campaign(tmp / "drift")
    async with running(env, objects, store, Gpu(store)):
        result = await asyncio.wait_for(env.client.execute_workflow(
            "VerifierDrift", VerifierDriftInput(DatasetRef("tst", "r1")), id=RECORDED["verifier-drift"],
            task_queue=queues.CONTROL, result_type=VerifierDriftResult), 60)
    assert result.tasks_with_drift == ["beta"], result
    await _write(env, "verifier-drift")


async def _record_campaign_breaker(env, tmp: Path) -> None:
    """Preflight, two infra exceptions in a window of three: paused; the resume signal; done."""
    import asyncio

    from activities.campaigns import CampaignActivities
    from contracts import queues
    from contracts.payloads.campaigns import BreakerOptions, CampaignInput, CampaignResult
    from contracts.payloads.common import DatasetRef
    from storage.content import FilesystemStore
    from storage.objects import FilesystemObjects
    from tests.campaign_support.publications import write_frozen_revision
    from tests.orchestration.test_campaign_preflight_breaker_mocked import (PROJECT, TASKS, Gpu, registry,
                                                                            running, wait_for)

    objects, store = FilesystemObjects(tmp / "breaker" / "objects"), FilesystemStore(tmp / "breaker" / "store")
    write_frozen_revision(objects, store, "t", "r1", {"test": TASKS})
    gpu = Gpu()
    gpu.infra = {"b1.alpha.oracle.2", "b1.alpha.nop.1"}
    req = CampaignInput("b1", mode="twice", dataset=DatasetRef("t", "r1"), split="test", caps={"gpu": 1},
                        trial_attempts=1, bootstrap_samples=200, registry=registry(tmp / "breaker"),
                        breaker=BreakerOptions(failures=2, window=3))
    async with running(env, CampaignActivities(store, objects, PROJECT), gpu):
        handle = await env.client.start_workflow("EvaluationCampaign", req,
                                                 id=RECORDED["evaluation-campaign.breaker"],
                                                 task_queue=queues.CONTROL, result_type=CampaignResult)
        await wait_for(handle, lambda p: p["paused"] is not None, "paused")
        gpu.outage = False
        await handle.signal("resume")
        result = await asyncio.wait_for(handle.result(), 60)
    assert result.trials == 12 and len(result.pauses) == 1, result
    await _write(env, "evaluation-campaign.breaker")


async def _record_campaign_smoke_beside(env, tmp: Path) -> None:
    """Gpu cap 3: the endpoints, then the smoke trial beside two trials; the rest after it."""
    import asyncio

    from activities.campaigns import CampaignActivities
    from contracts import queues
    from contracts.payloads.campaigns import CampaignInput, CampaignResult
    from contracts.payloads.common import DatasetRef
    from storage.content import FilesystemStore
    from storage.objects import FilesystemObjects
    from tests.campaign_support.publications import write_frozen_revision
    from tests.orchestration.test_campaign_preflight_breaker_mocked import (PROJECT, TASKS, Gpu, one_of_each,
                                                                            running)

    objects, store = FilesystemObjects(tmp / "smoke" / "objects"), FilesystemStore(tmp / "smoke" / "store")
    write_frozen_revision(objects, store, "t", "r1", {"test": TASKS})
    req = CampaignInput("sb", mode="one", dataset=DatasetRef("t", "r1"), split="test", caps={"gpu": 3, "llm": 2},
                        bootstrap_samples=200, registry=one_of_each(tmp / "smoke"))
    async with running(env, CampaignActivities(store, objects, PROJECT), Gpu()):
        result = await asyncio.wait_for(env.client.execute_workflow(
            "EvaluationCampaign", req, id=RECORDED["evaluation-campaign.smoke-beside"],
            task_queue=queues.CONTROL, result_type=CampaignResult), 60)
    assert result.trials == 6, result
    await _write(env, "evaluation-campaign.smoke-beside")


async def _record_campaign_smoke_failed(env, tmp: Path) -> None:
    """The smoke trial fails while trials run beside it: they are cancelled, the campaign fails."""
    from activities.campaigns import CampaignActivities
    from storage.content import FilesystemStore
    from storage.objects import FilesystemObjects
    from tests.campaign_support.publications import write_frozen_revision
    from tests.orchestration.test_campaign_preflight_breaker_mocked import (PROJECT, TASKS, Gpu, failed_campaign,
                                                                            failing_preflight)

    objects, store = FilesystemObjects(tmp / "failed" / "objects"), FilesystemStore(tmp / "failed" / "store")
    write_frozen_revision(objects, store, "t", "r1", {"test": TASKS})
    gpu = Gpu()
    gpu.hold = {f"pf-smoke.{t}.{c}.1" for t in TASKS for c in ("oracle", "llm-default")}
    gpu.preflight_answer = failing_preflight("smoke", smoke_after=gpu.started)
    (tmp / "failed").mkdir(exist_ok=True)
    await failed_campaign(env, CampaignActivities(store, objects, PROJECT), gpu, "pf-smoke", tmp / "failed")
    await _write(env, "evaluation-campaign.smoke-failed")


async def _record_campaign_recovery_preflight(env, tmp: Path) -> None:
    """A campaign with two infra exceptions; their recovery: the preflight, then both reruns."""
    import asyncio

    from contracts import queues
    from contracts.payloads.campaigns import CampaignResult, RecoveryInput
    from tests.orchestration.test_campaign_preflight_breaker_mocked import running
    from tests.orchestration.test_campaign_recovery_preflight_mocked import broken, campaign_with_exceptions
    from tests.orchestration.test_evaluation_campaign_mocked import passing_preflight

    objects, campaigns, gpu = await campaign_with_exceptions(env, tmp / "recovery-preflight", "rp-record")
    gpu.preflight_answer = passing_preflight
    async with running(env, campaigns, gpu):
        result = await asyncio.wait_for(env.client.execute_workflow(
            "CampaignRecovery", RecoveryInput("rp-record", broken("rp-record"), "sandbox slot outage", "ops"),
            id=RECORDED["campaign-recovery.preflight"], task_queue=queues.CONTROL, result_type=CampaignResult), 60)
    assert result.recovery == 1 and result.exceptions == [], result
    await _write(env, "campaign-recovery.preflight")


RECORDERS = {"vl-grading": _record_vl_grading, "model-authoring": _record_model_authoring,
             "dataset-production": _record_dataset_production, "task-derivation": _record_task_derivation,
             "task-derivation.lineage": _record_task_derivation_lineage,
             "evaluation-campaign": _record_campaign, "model-rate-budget": _record_model_rate_budget,
             "verifier-drift": _record_verifier_drift,
             "evaluation-campaign.breaker": _record_campaign_breaker,
             "evaluation-campaign.smoke-beside": _record_campaign_smoke_beside,
             "evaluation-campaign.smoke-failed": _record_campaign_smoke_failed,
             "campaign-recovery.preflight": _record_campaign_recovery_preflight}


async def record(names: list[str]) -> None:
    import tempfile

    from temporalio.testing import WorkflowEnvironment

    from tests.conftest import DEV_SERVER_STARTUP, TEMPORAL_BIN, free_port
    from workflows.task_production import SEED_KEY, STAGE_KEY

    env = await WorkflowEnvironment.start_local(
        port=free_port(), dev_server_existing_path=str(TEMPORAL_BIN),
        search_attributes=[STAGE_KEY, SEED_KEY], dev_server_log_level="error",
        dev_server_startup_timeout=DEV_SERVER_STARTUP)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name in names or RECORDERS:
                if name in ("evaluation-campaign", "verifier-drift", "evaluation-campaign.breaker",
                            "evaluation-campaign.smoke-beside", "evaluation-campaign.smoke-failed",
                            "campaign-recovery.preflight"):
                    await RECORDERS[name](env, Path(tmp))  # these write their stores in tmp
                else:
                    await RECORDERS[name](env)
    finally:
        await env.shutdown()


if __name__ == "__main__":
    import argparse
    import asyncio

    parser = argparse.ArgumentParser(
        prog="python -m tests.orchestration.test_replay",
        description="Record the histories named in RECORDED (overwrites them; a dev server of its own).",
        epilog="exit codes:\n  0  recorded\n  1  a recording failed (traceback)\n"
               "  2  bad usage: --record missing, an unknown NAME",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--record", action="store_true", required=True,
                        help="required: recording overwrites the stored histories")
    parser.add_argument("names", nargs="*", choices=list(RECORDERS), metavar="NAME",
                        help=f"record only these ({', '.join(RECORDERS)}); default: all")
    args = parser.parse_args()
    asyncio.run(record(args.names))
