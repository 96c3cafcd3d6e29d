"""EvaluationCampaign's preflight and circuit breaker with the gpu side mocked: no Blender, no
model, seconds. The campaign activities are the real ones on real files (a frozen revision
written into a temporary object store); `run_trial`, `score_trial` and `preflight_campaign` are
stand-ins. Asserted on events, order and counts — never on timings.

* A failed model endpoint fails the campaign with its named error before any trial starts: no
  run_trial, no record, preflight.json says what failed. The smoke trial runs on one gpu slot
  while the first trials take the cap's others; a failed one cancels them (nothing recorded),
  no further trial starts, and the campaign fails with SandboxSmokeFailed.
* The breaker: two planted infrastructure exceptions among the last three finished trials
  pause the campaign (no trial starts while paused: from its history), `progress` names the
  trials and their failures, `arkevo campaign resume` refuses a campaign that is not paused
  (exit 2, CampaignNotPaused) and resumes a paused one; a `resume` signal to a running
  campaign that is not paused changes nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from temporalio import activity
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.worker import Worker

from activities.campaigns import CampaignActivities
from campaigns.layout import CampaignKeys
from cli.campaign import _resume, status_lines
from contracts import queues
from contracts.errors import MODEL_ENDPOINT_UNREACHABLE, SANDBOX_SMOKE_FAILED
from contracts.payloads.campaigns import (BreakerOptions, CampaignInput, CampaignResult, EndpointCheck,
                                          PreflightInput, PreflightReport, SmokeTrial)
from contracts.payloads.common import DatasetRef
from contracts.payloads.trials import ScoreTrialInput, TrialOutcome, TrialRequest
from storage.content import FilesystemStore
from storage.objects import FilesystemObjects
from tests.campaign_support.publications import write_frozen_revision
from tests.orchestration.test_evaluation_campaign_mocked import PROJECT, passing_preflight
from workflows.evaluation_campaign import CampaignRecovery, CampaignTrial, EvaluationCampaign

TASKS = ["alpha", "beta", "gamma"]


class Gpu:
    """Trials in plan order (gpu cap 1); `infra` trials fail while `outage` lasts; `hold`
    trials wait for `release`; the preflight answers `preflight_answer`."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.preflights: list[PreflightInput] = []
        self.infra: set[str] = set()
        self.outage = True
        self.hold: set[str] = set()
        self.release = threading.Event()
        self.started = threading.Event()  # a run_trial began
        self.preflight_answer = passing_preflight

    def activities(self) -> list:
        @activity.defn(name="run_trial")
        def run_trial(req: TrialRequest) -> TrialOutcome:
            self.calls.append(req.trial_id)
            self.started.set()
            if req.trial_id in self.hold:
                self.release.wait(60)
            if req.trial_id in self.infra and self.outage:
                raise ApplicationError("sandbox could not start: slot pool exhausted", type="TrialInfraError")
            return TrialOutcome(req.trial_id, req.policy, req.stage, req.attempt, None, None,
                                req.identity.verifier_version, started_at="2026-11-30T00:00:00+00:00",
                                finished_at="2026-11-30T00:00:02+00:00")

        @activity.defn(name="score_trial")
        def score_trial(req: ScoreTrialInput) -> TrialOutcome:
            o = req.outcome
            o.reward = 1.0 if o.policy == "oracle" else 0.2
            o.success = o.reward >= req.grading.pass_threshold
            return o

        @activity.defn(name="preflight_campaign")
        def preflight_campaign(req: PreflightInput) -> PreflightReport:
            return self.preflight_answer(req, self.preflights)

        return [run_trial, score_trial, preflight_campaign]


def registry(tmp_path: Path) -> str:
    """The shipped registry plus `twice`: oracle 2 + nop 2 per task (12 trials over 3 tasks)."""
    doc = json.loads((PROJECT / "contracts" / "solver_configs.json").read_text())
    doc["modes"]["twice"] = {"description": "oracle 2 + nop 2", "attempts": {"oracle": 2, "nop": 2}}
    path = tmp_path / "solver_configs.json"
    path.write_text(json.dumps(doc))
    return str(path)


@pytest.fixture
def setup(tmp_path):
    objects = FilesystemObjects(tmp_path / "objects")
    store = FilesystemStore(tmp_path / "store")
    write_frozen_revision(objects, store, "t", "r1", {"test": TASKS})
    return objects, CampaignActivities(store, objects, PROJECT)


class running:
    """The control, cpu and gpu workers of these tests (and of recoveries:
    test_campaign_recovery_preflight_mocked.py), on the module's dev server."""

    def __init__(self, env, campaigns: CampaignActivities, gpu: Gpu) -> None:
        self.env, self.campaigns, self.gpu = env, campaigns, gpu

    async def __aenter__(self):
        self.pool = ThreadPoolExecutor(8)
        run_trial, score_trial, preflight = self.gpu.activities()
        c = self.campaigns
        self.workers = [
            Worker(self.env.client, task_queue=queues.CONTROL,
                   workflows=[EvaluationCampaign, CampaignTrial, CampaignRecovery]),
            Worker(self.env.client, task_queue=queues.CPU, activity_executor=self.pool,
                   activities=[c.plan_campaign, c.record_campaign_trial, c.write_campaign_report,
                               c.record_preflight, c.plan_recovery, c.finish_recovery, score_trial]),
            Worker(self.env.client, task_queue=queues.GPU, activity_executor=self.pool,
                   activities=[run_trial, preflight], max_concurrent_activities=4)]
        for w in self.workers:
            await w.__aenter__()
        return self

    async def __aexit__(self, *exc):
        self.gpu.release.set()
        for w in reversed(self.workers):
            await w.__aexit__(*exc)
        self.pool.shutdown()


def failing_preflight(kind: str, smoke_after: threading.Event | None = None):
    """A preflight whose endpoint check or smoke trial fails; the smoke (a call with a task)
    answers once `smoke_after` is set, when given: a trial beside it has begun."""
    def answer(req: PreflightInput, seen: list[PreflightInput]) -> PreflightReport:
        if kind == "smoke" and req.task is None:  # the endpoints alone: they answer
            return passing_preflight(req, seen)
        seen.append(req)
        if smoke_after is not None:
            assert smoke_after.wait(30), "no trial began beside the smoke trial"
        if kind == "endpoint":
            return PreflightReport(req.campaign_id, "2026-11-30T00:00:00+00:00", "stand-in", [EndpointCheck(
                ["llm-default"], "http://127.0.0.1:9/v1", "fake-model", None, False, 0.01,
                MODEL_ENDPOINT_UNREACHABLE, "model endpoint http://127.0.0.1:9/v1/chat/completions "
                "(fake-model): ConnectError: [Errno 111] Connection refused")], None)
        return PreflightReport(req.campaign_id, "2026-11-30T00:00:00+00:00", "stand-in", [], SmokeTrial(
            "alpha", False, 3.0, error_type=SANDBOX_SMOKE_FAILED,
            error="TrialInfraError: SandboxError: no free sandbox slot"))
    return answer


async def test_a_failed_endpoint_stops_the_campaign_before_any_trial(env, setup, tmp_path):
    objects, campaigns = setup
    gpu = Gpu()
    gpu.preflight_answer = failing_preflight("endpoint")
    cause, root = await failed_campaign(env, campaigns, gpu, "pf-endpoint", tmp_path)
    assert isinstance(cause, ApplicationError) and cause.type == MODEL_ENDPOINT_UNREACHABLE
    assert "config(s) llm-default (http://127.0.0.1:9/v1, model fake-model)" in cause.message
    assert gpu.calls == [] and len(gpu.preflights) == 1 and gpu.preflights[0].task is None
    assert not (root / "records").exists() and not (root / "trials.jsonl").exists()
    preflight = json.loads((root / "preflight.json").read_text())
    assert preflight["ok"] is False and preflight["failure"]["type"] == MODEL_ENDPOINT_UNREACHABLE
    assert preflight["smoke"] is None  # no sandbox for a dead endpoint


async def test_a_failed_smoke_trial_cancels_the_trials_beside_it(env, setup, tmp_path):
    objects, campaigns = setup
    gpu = Gpu()
    gpu.hold = {f"pf-smoke.{t}.{c}.1" for t in TASKS for c in ("oracle", "llm-default")}
    smoke_may_answer = threading.Event()
    gpu.preflight_answer = failing_preflight("smoke", smoke_after=smoke_may_answer)
    async with running(env, campaigns, gpu):
        handle = await env.client.start_workflow(
            "EvaluationCampaign", CampaignInput("pf-smoke", mode="one", dataset=DatasetRef("t", "r1"),
                                                split="test", bootstrap_samples=200,
                                                registry=one_of_each(tmp_path)),
            id="campaign-pf-smoke", task_queue=queues.CONTROL, result_type=CampaignResult)
        progress = await wait_for(handle, lambda p: p["counts"]["running"] >= 1 and gpu.started.is_set(),
                                  "running a trial beside the smoke trial")
        assert progress["preflight"]["smoke_running"] is True and progress["preflight"]["ok"] is None
        assert status_lines(progress, "pf-smoke") == [
            "preflight: 1/1 model endpoint(s) answered, smoke trial running beside the first trials"]
        smoke_may_answer.set()
        with pytest.raises(WorkflowFailureError) as failed:
            await asyncio.wait_for(handle.result(), 60)
        progress = await handle.query("progress")
    cause = failed.value.cause
    assert isinstance(cause, ApplicationError) and cause.type == SANDBOX_SMOKE_FAILED
    root = Path(objects.location(CampaignKeys("pf-smoke").root))
    assert progress["counts"]["running"] == 0 and progress["counts"]["recorded"] == 0
    assert "sandbox smoke trial on task alpha: TrialInfraError" in cause.message
    # Endpoints first, then the smoke trial on alpha with the gpu cap's other 3 slots taken by
    # trials (the llm cap lets 2 model trials run); at most those ran, all were cancelled, and
    # nothing was recorded.
    assert [(p.task and p.task.frozen.task_id) for p in gpu.preflights] == [None, "alpha"]
    history = await env.client.get_workflow_handle("campaign-pf-smoke").fetch_history()
    started = [e.start_child_workflow_execution_initiated_event_attributes.workflow_id
               for e in history.events if e.HasField("start_child_workflow_execution_initiated_event_attributes")]
    cancelled = [e for e in history.events if e.HasField("child_workflow_execution_canceled_event_attributes")]
    assert 1 <= len(started) <= 3 and len(cancelled) == len(started)
    assert set(gpu.calls) <= {w.removeprefix("campaign-pf-smoke.") for w in started}
    assert not (root / "records").exists() and not (root / "trials.jsonl").exists()
    preflight = json.loads((root / "preflight.json").read_text())
    assert preflight["ok"] is False and preflight["failure"]["type"] == SANDBOX_SMOKE_FAILED
    assert [e["config_ids"] for e in preflight["endpoints"]] == [["llm-default"]]  # carried


async def test_a_smoke_trial_that_raises_cancels_the_trials_beside_it_too(env, setup, tmp_path):
    """Not a failed check but the activity itself failing (its retries spent): the same end."""
    objects, campaigns = setup
    gpu = Gpu()
    gpu.hold = {f"pf-raise.{t}.{c}.1" for t in TASKS for c in ("oracle", "llm-default")}

    def raising(req: PreflightInput, seen: list[PreflightInput]) -> PreflightReport:
        if req.task is None:
            return passing_preflight(req, seen)
        seen.append(req)
        assert gpu.started.wait(30), "no trial began beside the smoke trial"
        raise ApplicationError("the gpu worker lost its sandbox base folder", non_retryable=True)

    gpu.preflight_answer = raising
    cause, root = await failed_campaign(env, campaigns, gpu, "pf-raise", tmp_path)
    assert isinstance(cause, ActivityError) and "lost its sandbox base folder" in str(cause.cause)
    history = await env.client.get_workflow_handle("campaign-pf-raise").fetch_history()
    started = [e for e in history.events if e.HasField("start_child_workflow_execution_initiated_event_attributes")]
    cancelled = [e for e in history.events if e.HasField("child_workflow_execution_canceled_event_attributes")]
    assert 1 <= len(started) <= 3 and len(cancelled) == len(started)
    assert not (root / "records").exists() and not (root / "trials.jsonl").exists()


async def failed_campaign(env, campaigns, gpu: Gpu, cid: str, tmp_path: Path):
    """Run campaign `cid` (oracle 1 + llm-default 1 per task) to its failure: (cause, root)."""
    async with running(env, campaigns, gpu):
        with pytest.raises(WorkflowFailureError) as failed:
            await asyncio.wait_for(env.client.execute_workflow(
                "EvaluationCampaign", CampaignInput(cid, mode="one", dataset=DatasetRef("t", "r1"),
                                                    split="test", bootstrap_samples=200,
                                                    registry=one_of_each(tmp_path)),
                id=f"campaign-{cid}", task_queue=queues.CONTROL, result_type=CampaignResult), 60)
    cause = failed.value.cause
    root = Path(campaigns.objects.location(CampaignKeys(cid).root))
    assert (root / "evaluation-plan.json").is_file()  # registered first: the same id resumes it
    return cause, root


def one_of_each(tmp_path: Path) -> str:
    doc = json.loads((PROJECT / "contracts" / "solver_configs.json").read_text())
    doc["modes"]["one"] = {"description": "oracle 1 + llm-default 1",
                           "attempts": {"oracle": 1, "llm-default": 1}}
    path = tmp_path / "one.json"
    path.write_text(json.dumps(doc))
    return str(path)


async def wait_for(handle, check, what: str) -> dict:
    """Poll the `progress` query until `check(progress)`: waiting for a state, not timing it."""
    for _ in range(600):
        progress = await handle.query("progress")
        if check(progress):
            return progress
        await asyncio.sleep(0.1)
    raise AssertionError(f"never {what}: {progress}")


async def test_the_breaker_pauses_reports_why_and_resumes_on_the_signal(env, setup, tmp_path):
    objects, campaigns = setup
    gpu = Gpu()
    # plan order: alpha.oracle.1, alpha.oracle.2, alpha.nop.1, alpha.nop.2, beta.oracle.1, …
    first, second, third = "b1.alpha.oracle.1", "b1.alpha.oracle.2", "b1.alpha.nop.1"
    gpu.hold = {first}
    gpu.infra = {second, third}
    address = env.client.service_client.config.target_host
    req = CampaignInput("b1", mode="twice", dataset=DatasetRef("t", "r1"), split="test",
                        caps={"gpu": 1}, trial_attempts=1, bootstrap_samples=200,
                        registry=registry(tmp_path), breaker=BreakerOptions(failures=2, window=3))
    async with running(env, campaigns, gpu):
        handle = await env.client.start_workflow("EvaluationCampaign", req, id="campaign-b1",
                                                 task_queue=queues.CONTROL, result_type=CampaignResult)
        progress = await wait_for(handle, lambda p: p["counts"]["running"] == 1, "running its first trial")
        assert progress["paused"] is None and progress["preflight"]["ok"] is True
        assert progress["breaker"] == {"failures": 2, "window": 3}
        # Not paused: the CLI refuses by name; the bare signal is harmless.
        assert await _resume(argparse.Namespace(campaign_id="b1", address=address)) == 2
        await handle.signal("resume")
        gpu.release.set()

        paused = await wait_for(handle, lambda p: p["paused"] is not None, "paused")
        assert paused["paused"]["trials"] == {
            second: "TrialInfraError: sandbox could not start: slot pool exhausted",
            third: "TrialInfraError: sandbox could not start: slot pool exhausted"}
        assert paused["paused"]["reason"].startswith(
            "circuit breaker: 2 of the last 3 finished trials are infrastructure exceptions")
        assert paused["counts"] == {"pending": 9, "running": 0, "recorded": 3, "failed": 0,
                                    "already_recorded": 0}
        assert gpu.calls == [first, second, third]
        lines = status_lines(paused, "b1")  # what `arkevo campaign status b1` adds
        assert lines[0].startswith("preflight passed: 0/0 model endpoint(s) answered, smoke trial on alpha ok")
        assert lines[1].startswith(f"PAUSED since {paused['paused']['since']}: circuit breaker")
        assert lines[2] == "resume with: arkevo campaign resume b1"

        gpu.outage = False
        assert await _resume(argparse.Namespace(campaign_id="b1", address=address)) == 0
        result = await asyncio.wait_for(handle.result(), 60)

    assert result.trials == 12 and sorted(result.exceptions) == sorted([second, third])
    assert len(gpu.calls) == 12 and len(set(gpu.calls)) == 12  # each trial once (trial_attempts 1)
    [pause] = result.pauses
    assert set(pause["trials"]) == {second, third} and pause["resumed"] >= pause["since"]
    # From the history: two resume signals; no trial started between the pause and the second.
    history = await handle.fetch_history()
    order = [("signal" if e.HasField("workflow_execution_signaled_event_attributes") else "start")
             for e in history.events
             if e.HasField("workflow_execution_signaled_event_attributes")
             or e.HasField("start_child_workflow_execution_initiated_event_attributes")]
    assert order == ["start", "signal", "start", "start", "signal"] + ["start"] * 9
    assert await _resume(argparse.Namespace(campaign_id="b1", address=address)) == 2  # ended
    preflight = json.loads(Path(objects.location(CampaignKeys("b1").preflight)).read_text())
    assert preflight["ok"] is True and preflight["smoke"]["task_id"] == "alpha"
    assert [p.task.frozen.task_id for p in gpu.preflights] == ["alpha"]
