"""CampaignRecovery's preflight with the gpu side mocked: no Blender, no model, seconds. The
campaign activities are the real ones on real files (a frozen revision written into a temporary
object store); `run_trial`, `score_trial` and `preflight_campaign` are the stand-ins of
test_campaign_preflight_breaker_mocked.py. Asserted on files, events and order — never on
timings.

* A recovery whose preflight fails (a model endpoint, the smoke trial) reruns nothing and fails
  with the named error: no rerun record, no round trials.jsonl, no audit; the round's backup
  (which plan_recovery wrote before the older check too) holds the records as they were, the
  campaign's records, trials.jsonl and own preflight.json are untouched, and the round's
  preflight.json says what failed.
* The same ids again once it passes: the preflight runs for the configs of the reruns on the
  first named trial's task before any rerun starts, and exactly the named ids are rerun.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

import pytest
from temporalio import activity
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ApplicationError

from activities.campaigns import CampaignActivities
from campaigns.layout import CampaignKeys
from contracts import queues
from contracts.errors import MODEL_ENDPOINT_UNREACHABLE, SANDBOX_SMOKE_FAILED
from contracts.payloads.campaigns import (BreakerOptions, CampaignInput, CampaignResult, PreflightInput,
                                          PreflightReport, RecoveryInput)
from contracts.payloads.common import DatasetRef
from contracts.validation import validate_document
from storage.content import FilesystemStore
from storage.objects import FilesystemObjects
from tests.campaign_support.publications import write_frozen_revision
from tests.orchestration.test_campaign_preflight_breaker_mocked import (PROJECT, TASKS, Gpu, failing_preflight,
                                                                        one_of_each, running)
from tests.orchestration.test_evaluation_campaign_mocked import passing_preflight


class RecoveryGpu(Gpu):
    """The breaker test's gpu side; its preflight keeps the round it was asked for, as the
    real activity does (activities/preflight.py)."""

    def activities(self) -> list:
        run_trial, score_trial, _ = super().activities()

        @activity.defn(name="preflight_campaign")
        def preflight_campaign(req: PreflightInput) -> PreflightReport:
            return dataclasses.replace(self.preflight_answer(req, self.preflights),
                                       recovery_round=req.recovery_round)

        return [run_trial, score_trial, preflight_campaign]


def broken(cid: str) -> list[str]:
    """The two planted infrastructure exceptions, in the order a recovery names them."""
    return [f"{cid}.beta.llm-default.1", f"{cid}.gamma.oracle.1"]


async def campaign_with_exceptions(env, tmp: Path, cid: str) -> tuple[FilesystemObjects, CampaignActivities,
                                                                       RecoveryGpu]:
    """Campaign `cid` (oracle 1 + llm-default 1 on alpha, beta, gamma) run to its end with the
    two `broken` trials recorded as infrastructure exceptions; the outage is then over."""
    objects, store = FilesystemObjects(tmp / "objects"), FilesystemStore(tmp / "store")
    write_frozen_revision(objects, store, "t", "r1", {"test": TASKS})
    campaigns, gpu = CampaignActivities(store, objects, PROJECT), RecoveryGpu()
    gpu.infra = set(broken(cid))
    req = CampaignInput(cid, mode="one", dataset=DatasetRef("t", "r1"), split="test", trial_attempts=1,
                        bootstrap_samples=200, registry=one_of_each(tmp), breaker=BreakerOptions(failures=0))
    async with running(env, campaigns, gpu):
        result = await asyncio.wait_for(env.client.execute_workflow(
            "EvaluationCampaign", req, id=f"campaign-{cid}", task_queue=queues.CONTROL,
            result_type=CampaignResult), 60)
    assert result.trials == 6 and sorted(result.exceptions) == broken(cid), result
    gpu.outage = False
    return objects, campaigns, gpu


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def activity_order(history) -> list[str]:
    """Activities scheduled and children started, in the workflow's own order."""
    out = []
    for e in history.events:
        if e.HasField("activity_task_scheduled_event_attributes"):
            out.append(e.activity_task_scheduled_event_attributes.activity_type.name)
        elif e.HasField("start_child_workflow_execution_initiated_event_attributes"):
            out.append("CampaignTrial")
    return out


@pytest.mark.parametrize("kind, error_type, words", [
    ("endpoint", MODEL_ENDPOINT_UNREACHABLE, "config(s) llm-default (http://127.0.0.1:9/v1, model fake-model)"),
    ("smoke", SANDBOX_SMOKE_FAILED, "sandbox smoke trial on task alpha: TrialInfraError"),
])
async def test_a_failed_recovery_preflight_reruns_nothing(env, tmp_path, kind, error_type, words):
    cid = f"rp-{kind}"
    objects, campaigns, gpu = await campaign_with_exceptions(env, tmp_path, cid)
    keys = CampaignKeys(cid)
    root = Path(objects.location(keys.root))
    before = files(root)
    calls, preflights = len(gpu.calls), len(gpu.preflights)
    gpu.preflight_answer = failing_preflight(kind)
    async with running(env, campaigns, gpu):
        with pytest.raises(WorkflowFailureError) as failed:
            await asyncio.wait_for(env.client.execute_workflow(
                "CampaignRecovery", RecoveryInput(cid, broken(cid), "sandbox slot outage", "ops"),
                id=f"campaign-{cid}-recover-1", task_queue=queues.CONTROL, result_type=CampaignResult), 60)
    cause = failed.value.cause
    assert isinstance(cause, ApplicationError) and cause.type == error_type and words in cause.message
    assert cause.non_retryable
    assert gpu.calls[calls:] == []  # nothing rerun
    [asked] = gpu.preflights[preflights:]
    assert asked.recovery_round == 1 and asked.task is not None and asked.task.frozen.task_id == "beta"
    assert [c.config_id for c in asked.configs] == ["llm-default", "oracle"]

    after = files(root)
    # The campaign's own files untouched (its preflight.json too); the round holds the backup
    # that plan_recovery writes before any check, and the preflight that stopped it.
    assert {k: v for k, v in after.items() if not k.startswith("recoveries/")} == before
    assert sorted(k for k in after if k.startswith("recoveries/")) == [
        "recoveries/001/backup.jsonl", "recoveries/001/preflight.json"]
    backed_up = [json.loads(line) for line in after["recoveries/001/backup.jsonl"].splitlines()]
    assert [r["trial_id"] for r in backed_up] == broken(cid)
    assert [after[f"records/{t}.json"] for t in broken(cid)] == [before[f"records/{t}.json"] for t in broken(cid)]
    doc = json.loads(after["recoveries/001/preflight.json"])
    validate_document("preflight", doc, "preflight.json")
    assert doc["recovery_round"] == 1 and doc["ok"] is False and doc["failure"]["type"] == error_type
    assert words in doc["failure"]["message"]
    assert json.loads(after["preflight.json"])["recovery_round"] is None


async def test_a_passing_recovery_preflight_then_reruns_exactly_the_named_ids(env, tmp_path):
    cid = "rp-pass"
    objects, campaigns, gpu = await campaign_with_exceptions(env, tmp_path, cid)
    keys = CampaignKeys(cid)
    calls, preflights = len(gpu.calls), len(gpu.preflights)
    gpu.preflight_answer = passing_preflight
    async with running(env, campaigns, gpu):
        handle = await env.client.start_workflow(
            "CampaignRecovery", RecoveryInput(cid, broken(cid), "sandbox slot outage", "ops"),
            id=f"campaign-{cid}-recover-1", task_queue=queues.CONTROL, result_type=CampaignResult)
        result = await asyncio.wait_for(handle.result(), 60)
        progress = await handle.query("progress")
        history = await handle.fetch_history()
    assert result.recovery == 1 and result.exceptions == []
    assert sorted(gpu.calls[calls:]) == [f"{t}.recover-1" for t in broken(cid)]  # exactly the named ids
    [asked] = gpu.preflights[preflights:]
    assert asked.recovery_round == 1 and asked.task is not None and asked.task.frozen.task_id == "beta"
    assert [c.config_id for c in asked.configs] == ["llm-default", "oracle"]
    # The check before any rerun, stored before the first starts.
    assert activity_order(history) == ["plan_recovery", "preflight_campaign", "record_preflight",
                                       "CampaignTrial", "CampaignTrial", "finish_recovery",
                                       "write_campaign_report"]
    assert progress["preflight"]["ok"] is True and progress["preflight"]["recovery_round"] == 1

    doc = json.loads(Path(objects.location(keys.recovery_preflight(1))).read_text())
    validate_document("preflight", doc, "preflight.json")
    assert doc["ok"] is True and doc["failure"] is None and doc["smoke"]["task_id"] == "beta"
    assert doc["endpoints"][0]["config_ids"] == ["llm-default"]
    audit = json.loads(Path(objects.location(keys.audit(1))).read_text())
    assert audit["trial_ids"] == broken(cid)
    campaign_preflight = json.loads(Path(objects.location(keys.preflight)).read_text())
    assert campaign_preflight["recovery_round"] is None and campaign_preflight["smoke"]["task_id"] == "alpha"
