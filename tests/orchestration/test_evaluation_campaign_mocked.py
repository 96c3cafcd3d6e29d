"""EvaluationCampaign and CampaignRecovery with the trials mocked: no Blender, seconds.

A dev server of its own (the real `temporal` binary) runs the real workflows; the campaign
activities are the real ones on real files (a frozen dataset revision written into a temporary
object store, its task packages in a real content store). Only the gpu side is a stand-in:
`run_trial` returns a canned outcome (and fails with an infrastructure error for one trial
while the "outage" lasts) and `score_trial` scores it by policy.

Checked: the plan is on disk before the first trial; per-pool caps reached and never exceeded;
one record per attempt; the planted infra failure recorded as an exception and kept out of the
figures; recovery refuses graded and unknown ids and reruns only the named one, with a backup,
an audit and the original and recovered figures side by side; submitting the campaign again
runs nothing twice.
"""

from __future__ import annotations

import asyncio
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from temporalio import activity
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ApplicationError
from temporalio.worker import Worker

from activities.campaigns import CampaignActivities
from storage.content import FilesystemStore
from campaigns.layout import CampaignKeys
from contracts import queues
from contracts.payloads.campaigns import (CampaignInput, CampaignResult, EndpointCheck,
                                          PreflightInput, PreflightReport, RecoveryInput,
                                          SmokeTrial, SolverEndpointCheckInput)
from contracts.payloads.common import DatasetRef
from contracts.payloads.trials import ScoreTrialInput, MeasuredCost, TrialOutcome, TrialRequest
from storage.objects import FilesystemObjects
from tests.campaign_support.publications import write_frozen_revision
from workflows.evaluation_campaign import CampaignRecovery, CampaignTrial, EvaluationCampaign

PROJECT = Path(__file__).resolve().parents[2]
TASKS = ["alpha", "beta", "gamma"]
BROKEN = "t1.beta.llm-default.1"  # the planted infrastructure failure


class Gpu:
    def __init__(self, objects: FilesystemObjects) -> None:
        self.objects = objects
        self.lock = threading.Lock()
        self.running = {"gpu": 0, "llm": 0}
        self.peak = {"gpu": 0, "llm": 0}
        self.calls: list[str] = []
        self.outage = True
        self.plan_seen_first = None
        self.endpoint_checks = 0
        self.preflights: list[PreflightInput] = []

    def activities(self) -> list:
        @activity.defn(name="run_trial")
        def run_trial(req: TrialRequest) -> TrialOutcome:
            if self.plan_seen_first is None:
                self.plan_seen_first = self.objects.exists(CampaignKeys("t1").plan)
            pools = ["gpu", "llm"] if req.solver.kind == "model" else ["gpu"]
            with self.lock:
                self.calls.append(req.trial_id)
                for p in pools:
                    self.running[p] += 1
                    self.peak[p] = max(self.peak[p], self.running[p])
            try:
                threading.Event().wait(0.15)
                if req.trial_id == BROKEN and self.outage:
                    raise ApplicationError("sandbox could not start: slot pool exhausted",
                                           type="TrialInfraError")
            finally:
                with self.lock:
                    for p in pools:
                        self.running[p] -= 1
            cost = MeasuredCost(wall_sec=2.0, agent_sec=1.5,
                             model_calls=3 if req.solver.kind == "model" else 0,
                             input_tokens=300 if req.solver.kind == "model" else 0,
                             output_tokens=60 if req.solver.kind == "model" else 0,
                             agent_steps=4, sandbox_cpu_sec=1.25)
            return TrialOutcome(req.trial_id, req.policy, req.stage, req.attempt, None, None,
                                req.identity.verifier_version, started_at="2026-11-30T00:00:00+00:00",
                                finished_at="2026-11-30T00:00:02+00:00", cost=cost)

        @activity.defn(name="score_trial")
        def score_trial(req: ScoreTrialInput) -> TrialOutcome:
            o = req.outcome
            task = req.grading.task_id
            reward = {"oracle": 1.0, "nop": 0.2}.get(o.policy, 0.9 if task != "gamma" else 0.3)
            o.reward, o.success = reward, reward >= req.grading.pass_threshold
            return o

        @activity.defn(name="check_solver_endpoints")
        def check_solver_endpoints(req: SolverEndpointCheckInput) -> list[dict]:
            self.endpoint_checks += 1
            return [{"config_id": c.config_id} for c in req.configs if c.agent == "arkevo-llm"]

        @activity.defn(name="preflight_campaign")
        def preflight_campaign(req: PreflightInput) -> PreflightReport:
            return passing_preflight(req, self.preflights)

        return [run_trial, score_trial, check_solver_endpoints, preflight_campaign]


def passing_preflight(req: PreflightInput, seen: list[PreflightInput]) -> PreflightReport:
    """The gpu side's preflight as a stand-in: every model config's endpoint answered, the
    smoke trial passed (the real checks: tests/unit/test_campaign_preflight_ping.py and
    tests/integration/test_campaign_preflight.py)."""
    seen.append(req)
    llm = [c.config_id for c in req.configs if c.agent == "arkevo-llm"]
    return PreflightReport(req.campaign_id, "2026-11-30T00:00:00+00:00", "stand-in",
                           [EndpointCheck(llm, "http://fake/v1", "fake-model", None, True, 0.01)] if llm else [],
                           SmokeTrial(req.task.frozen.task_id, True, 1.0, "5.2.0", 3) if req.task else None,
                           req.recovery_round)


CLOSED = ("child_workflow_execution_completed_event_attributes",
          "child_workflow_execution_failed_event_attributes",
          "child_workflow_execution_timed_out_event_attributes",
          "child_workflow_execution_canceled_event_attributes",
          "child_workflow_execution_terminated_event_attributes",
          "start_child_workflow_execution_failed_event_attributes")


def children_open_at_most(history, until: str | None = None) -> dict[str, int]:
    """The most CampaignTrial children open at once per pool over a campaign's history (a
    model config's trial holds a gpu and an llm slot); until="smoke answered": before the
    preflight's smoke trial (its last preflight_campaign) completed."""
    pools_of, open_, most = {}, {"gpu": 0, "llm": 0}, {"gpu": 0, "llm": 0}
    preflights = [e.event_id for e in history.events if e.HasField("activity_task_scheduled_event_attributes")
                  and e.activity_task_scheduled_event_attributes.activity_type.name == "preflight_campaign"]
    for e in history.events:
        if (until and e.HasField("activity_task_completed_event_attributes")
                and e.activity_task_completed_event_attributes.scheduled_event_id == preflights[-1]):
            break
        if e.HasField("start_child_workflow_execution_initiated_event_attributes"):
            wid = e.start_child_workflow_execution_initiated_event_attributes.workflow_id
            pools_of[e.event_id] = ["gpu", "llm"] if ".llm-default." in wid else ["gpu"]
            for p in pools_of[e.event_id]:
                open_[p] += 1
                most[p] = max(most[p], open_[p])
        for field in CLOSED:
            if e.HasField(field):
                for p in pools_of[getattr(e, field).initiated_event_id]:
                    open_[p] -= 1
    return most


def one_model_attempt_registry(tmp_path: Path) -> Path:
    """The shipped registry plus a mode whose model config runs once per task, so that one
    planted exception leaves a task with no scored model attempt (`full` runs it 3 times)."""
    doc = json.loads((PROJECT / "contracts" / "solver_configs.json").read_text())
    doc["modes"]["one-model-attempt"] = {"description": "oracle 3 + nop 3 + llm-default 1",
                                         "attempts": {"oracle": 3, "nop": 3, "llm-default": 1}}
    path = tmp_path / "solver_configs.json"
    path.write_text(json.dumps(doc))
    return path


def campaign_workers(env, gpu: Gpu, campaigns: CampaignActivities, pool: ThreadPoolExecutor) -> list[Worker]:
    """The control, cpu and gpu workers of a mocked campaign: real workflows and campaign
    activities, the stand-in gpu side."""
    run_trial, score_trial, check_endpoints, preflight = gpu.activities()
    cpu_acts = [campaigns.plan_campaign, campaigns.record_campaign_trial, campaigns.write_campaign_report,
                campaigns.plan_recovery, campaigns.finish_recovery, campaigns.record_preflight]
    return [Worker(env.client, task_queue=queues.CONTROL,
                   workflows=[EvaluationCampaign, CampaignTrial, CampaignRecovery]),
            Worker(env.client, task_queue=queues.CPU, activities=[*cpu_acts, score_trial],
                   activity_executor=pool),
            Worker(env.client, task_queue=queues.GPU, activities=[run_trial, check_endpoints, preflight],
                   activity_executor=pool, max_concurrent_activities=8)]


def t1_request(tmp_path: Path, dataset: DatasetRef, split: str | None) -> CampaignInput:
    """Campaign t1 (the planted exception's) in the one-model-attempt mode."""
    return CampaignInput("t1", mode="one-model-attempt", dataset=dataset, split=split,
                         caps={"gpu": 3, "llm": 1}, trial_attempts=2, bootstrap_samples=500,
                         registry=str(one_model_attempt_registry(tmp_path)))


async def test_campaign_caps_records_figures_and_recovery_by_id(env, tmp_path):
    objects = FilesystemObjects(tmp_path / "objects")
    store = FilesystemStore(tmp_path / "store")
    write_frozen_revision(objects, store, "t", "r1", {"test": TASKS})
    gpu = Gpu(objects)
    campaigns = CampaignActivities(store, objects, PROJECT)
    keys = CampaignKeys("t1")
    req = t1_request(tmp_path, DatasetRef("t", "r1"), "test")
    with ThreadPoolExecutor(8) as pool:
        control, cpu, gpu_worker = campaign_workers(env, gpu, campaigns, pool)
        async with control, cpu, gpu_worker:
            result: CampaignResult = await asyncio.wait_for(env.client.execute_workflow(
                "EvaluationCampaign", req, id="campaign-t1", task_queue=queues.CONTROL,
                result_type=CampaignResult), 90)

            # oracle 3 + nop 3 + llm-default 1 per task, 3 tasks
            assert result.trials == 21 and result.exceptions == [BROKEN]
            assert gpu.plan_seen_first is True
            # The preflight (its stand-in here): the endpoints of the configs to run before any
            # trial, then the smoke trial on the first task, beside the first trials; the older
            # env-only endpoint check belongs to campaigns started before it.
            assert [(p.task and p.task.frozen.task_id, [c.config_id for c in p.configs])
                    for p in gpu.preflights] == [(None, ["oracle", "nop", "llm-default"]), ("alpha", [])]
            assert gpu.endpoint_checks == 0
            # The caps as the workflow applied them, from its history (its own decisions,
            # whatever the machine's speed): reached, never exceeded; the trials the fake saw
            # at once never exceeded them either (how many overlapped there is timing). While
            # the smoke trial ran it held one gpu slot: the cap's 2 others ran trials.
            history = await env.client.get_workflow_handle("campaign-t1").fetch_history()
            assert children_open_at_most(history) == {"gpu": 3, "llm": 1}
            assert children_open_at_most(history, until="smoke answered")["gpu"] == 2
            assert gpu.peak["gpu"] <= 3 and gpu.peak["llm"] <= 1
            assert gpu.calls.count(BROKEN) == 2  # trial_attempts, then recorded as infra
            assert len(gpu.calls) == 22
            lines = (tmp_path / "objects" / keys.trials).read_text().splitlines()
            assert len(lines) == 21 and len({json.loads(line)["trial_id"] for line in lines}) == 21
            broken = next(json.loads(line) for line in lines if json.loads(line)["trial_id"] == BROKEN)
            assert broken["reward"] is None and broken["failure"]["kind"] == "infra"
            assert broken["failure"]["type"] == "TrialInfraError"

            report = json.loads((tmp_path / "objects" / keys.report_json).read_text())
            llm = next(c for c in report["original"]["groups"][0]["configs"] if c["config"] == "llm-default")
            # beta's only llm attempt is the exception: 2 tasks scored (alpha 0.9, gamma 0.3)
            assert llm["avg_at_k"]["n"] == 2 and llm["avg_at_k"]["mean"] == pytest.approx(0.6)
            assert llm["missing"] == 1 and llm["undetermined_pass"] == 1
            assert report["original"]["exceptions"][0]["trial_id"] == BROKEN
            assert report["original"]["cost"]["configs"]["llm-default"]["model_calls"] == 6  # 2 scored + 0
            assert report["original"]["cost"]["campaign"]["sandbox_cpu_sec"] == pytest.approx(1.25 * 20)
            assert report["recovered"] is None

            # Recovery names trials one by one, and only infrastructure exceptions.
            for ids, words in (([], "name the trials"), (["t1.alpha.oracle.1"], "graded attempts"),
                               (["t1.beta.llm-default.*"], "not trials of campaign")):
                with pytest.raises(WorkflowFailureError) as e:
                    await env.client.execute_workflow(
                        "CampaignRecovery", RecoveryInput("t1", ids, "sandbox outage", "ops"),
                        id=f"campaign-t1-recover-bad-{len(ids)}-{words[:4]}", task_queue=queues.CONTROL)
                assert words in str(e.value.cause.cause)
            assert not (tmp_path / "objects" / keys.recoveries).exists()

            gpu.outage = False
            calls_before = len(gpu.calls)
            recovered: CampaignResult = await asyncio.wait_for(env.client.execute_workflow(
                "CampaignRecovery", RecoveryInput("t1", [BROKEN], "sandbox slot outage 14:02", "ops@arkevo"),
                id="campaign-t1-recover-1", task_queue=queues.CONTROL, result_type=CampaignResult), 60)
            assert gpu.calls[calls_before:] == [f"{BROKEN}.recover-1"]  # only the named trial
            assert recovered.recovery == 1 and recovered.exceptions == []

            audit = json.loads((tmp_path / "objects" / keys.audit(1)).read_text())
            assert audit["trial_ids"] == [BROKEN] and audit["requested_by"] == "ops@arkevo"
            backup = (tmp_path / "objects" / keys.backup(1)).read_bytes()
            assert json.loads(backup)["trial_id"] == BROKEN and json.loads(backup)["reward"] is None
            assert audit["replaced"][0]["original_failure"] == {"kind": "infra", "type": "TrialInfraError"}
            assert audit["replaced"][0]["recovered_reward"] == 0.9
            original_bytes = (tmp_path / "objects" / keys.trials).read_bytes()
            assert original_bytes == "\n".join(lines).encode() + b"\n"  # the original run untouched
            rec_lines = [json.loads(line) for line in
                         (tmp_path / "objects" / keys.recovered_trials(1)).read_text().splitlines()]
            assert len(rec_lines) == 21
            fixed = next(r for r in rec_lines if r["trial_id"] == BROKEN)
            assert fixed["recovery"]["round"] == 1 and fixed["reward"] == 0.9

            report = json.loads((tmp_path / "objects" / keys.report_json).read_text())
            orig = next(c for c in report["original"]["groups"][0]["configs"] if c["config"] == "llm-default")
            new = next(c for c in report["recovered"]["groups"][0]["configs"] if c["config"] == "llm-default")
            assert orig["avg_at_k"]["n"] == 2 and new["avg_at_k"]["n"] == 3  # separate, not merged
            assert new["avg_at_k"]["mean"] == pytest.approx(0.7)
            md = (tmp_path / "objects" / keys.report_md).read_text()
            assert "| llm-default | original |" in md and "| llm-default | recovered |" in md
            assert "Recovery round 1 reran 1 trial(s) by id" in md

            # A recovered trial is no longer an exception: it cannot be "recovered" again.
            with pytest.raises(WorkflowFailureError) as e:
                await env.client.execute_workflow(
                    "CampaignRecovery", RecoveryInput("t1", [BROKEN], "again", "ops"),
                    id="campaign-t1-recover-again", task_queue=queues.CONTROL)
            assert "graded attempts" in str(e.value.cause.cause)

            # The same campaign submitted again: plan reused, nothing run twice.
            calls_before = len(gpu.calls)
            again: CampaignResult = await asyncio.wait_for(env.client.execute_workflow(
                "EvaluationCampaign", req, id="campaign-t1-again", task_queue=queues.CONTROL,
                result_type=CampaignResult), 60)
            assert len(gpu.calls) == calls_before and again.trials == 21
            # The campaign's and the recovery's (recoveries/001/preflight.json); every trial
            # recorded: nothing to run, nothing to check.
            assert [p.recovery_round for p in gpu.preflights] == [None, None, 1]  # endpoints, smoke

            # Another plan under the same id is refused.
            with pytest.raises(WorkflowFailureError) as e:
                await env.client.execute_workflow(
                    "EvaluationCampaign", CampaignInput("t1", mode="pilot", dataset=DatasetRef("t", "r1"),
                                                        split="test"),
                    id="campaign-t1-conflict", task_queue=queues.CONTROL)
            assert "already has another plan" in str(e.value.cause.cause)
