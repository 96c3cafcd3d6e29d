"""VerifierDrift with the re-scoring mocked: no Blender, seconds (docs/verifier-drift.md).

A dev server of its own (the real `temporal` binary) runs the real workflow; planning and the
report are the real cpu activities on real files (a frozen revision of two publications and a
campaign over one of them, written into a temporary object store). Only the gpu side is a
stand-in: `drift_task` returns a canned entry -- beta's reference sample flips -- and fails
once with an infrastructure error first.

Checked: one re-scoring activity per task, each given its campaign trials; the infrastructure
fault retried, not reported; the report written once beside the revision, naming the task and
the sample whose verdict flips; `arkevo verifier drift` following the same workflow exits 1
with that table, and 0 when nothing drifts; bad input fails at once, non-retryable, before any
re-scoring and without a report.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from temporalio import activity
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ApplicationError
from temporalio.worker import Worker

from activities.verifier_drift import DriftActivities
from campaigns.layout import CampaignKeys
from contracts import queues
from contracts.payloads.common import DatasetRef
from contracts.payloads.verifier_drift import (DriftTaskInput, DriftTaskResult, VerifierDriftInput,
                                               VerifierDriftReport, VerifierDriftResult)
from dataset_revisions.layout import RevisionKeys
from storage.content import FilesystemStore
from storage.objects import FilesystemObjects
from tests.campaign_support.publications import write_frozen_revision
from verifiers.drift import Graded, not_rescored_mutation, record_entry, task_drifts
from workflows.verifier_drift import VerifierDrift

PROJECT = Path(__file__).resolve().parents[2]
KEYS = RevisionKeys("tst", "r1")
CRITERIA = [{"id": "C01", "passed": True}, {"id": "C07", "passed": True}]
FAILED = [{"id": "C01", "passed": True}, {"id": "C07", "passed": False}]


class Gpu:
    """The stand-in re-scoring: beta's reference flips while `flip` holds; beta's first try is an
    infrastructure fault."""

    def __init__(self, store: FilesystemStore) -> None:
        self.store = store
        self.lock = threading.Lock()
        self.calls: list[str] = []
        self.campaign_records: dict[str, list[str]] = {}
        self.attacks: list[bool] = []  # each re-scoring's `attacks`, as the plan handed it down
        self.flip = True

    def activity(self):
        @activity.defn(name="drift_task")
        def drift_task(req: DriftTaskInput) -> DriftTaskResult:
            with self.lock:
                self.calls.append(req.task_id)
                self.campaign_records[req.task_id] = [r.trial_id for r in req.campaign_records]
                self.attacks.append(req.attacks)
            if req.task_id == "beta" and activity.info().attempt == 1:
                raise ApplicationError("sandbox could not start: slot pool exhausted", type="SandboxUnavailable")
            flips = req.task_id == "beta" and self.flip
            records = [record_entry("calibration", "reference", Graded.of(1.0, True, CRITERIA),
                                    Graded.of(0.4, False, FAILED) if flips else Graded.of(1.0, True, CRITERIA),
                                    req.tolerance),
                       record_entry("evaluation", f"{req.task_id}.oracle.1", Graded.of(1.0, True, CRITERIA),
                                    Graded.of(1.0, True, CRITERIA), req.tolerance)]
            records += [record_entry("campaign", r.trial_id, None, None, req.tolerance, campaign_id=r.campaign_id,
                                     not_rescored="infrastructure exception (X): not a graded attempt")
                        for r in req.campaign_records]
            mutation = not_rescored_mutation("no reference delivery in this content store to attack")
            calibration = {"passed_before": True, "passed_now": True, "misses_now": [], "changed": False}
            entry = {"task_id": req.task_id, "task_version": "v1-000000000000",
                     "publication_id": f"{req.task_id}-r1", "publication_sha256": req.publication_sha256,
                     "scoring_profile": {"profile_id": "rule-only", "profile_version": "1"},
                     "frozen_verifier_version": "vv2-0000000000000000",
                     "current_verifier_version": "vv2-1111111111111111" if flips else "vv2-0000000000000000",
                     "version_changed": flips, "frozen_version_reproduced": True, "vl_answers": "not-weighted",
                     "records": records, "calibration": calibration, "mutation": mutation,
                     "drift": task_drifts(records, mutation, calibration)}
            return DriftTaskResult(req.task_id, self.store.put_json(entry), entry["drift"], int(flips), 2,
                                   len(req.campaign_records))

        return drift_task


def write_campaign(objects: FilesystemObjects, task_id: str, publication_sha256: str) -> None:
    """A campaign over one publication of the revision, as its plan and its one record name it."""
    keys = CampaignKeys("c1")
    trial = f"c1.{task_id}.oracle.1"
    objects.put_if_absent(keys.plan, json.dumps({
        "campaign_id": "c1", "tasks": [{"task_id": task_id, "publication_sha256": publication_sha256}],
        "trials": [{"trial_id": trial, "task_id": task_id}]}).encode())
    objects.put_if_absent(keys.record(trial), json.dumps({"trial_id": trial, "task_id": task_id}).encode())


def revision_with_a_campaign(var: Path) -> tuple[FilesystemObjects, FilesystemStore]:
    """The frozen revision tst/r1 (alpha, beta) and campaign c1 over alpha, in `var`."""
    objects, store = FilesystemObjects(var), FilesystemStore(var / "store")
    write_frozen_revision(objects, store, "tst", "r1", {"test": ["alpha", "beta"]})
    objects.put_if_absent(KEYS.spec, b"{}")
    manifest = json.loads(objects.get(KEYS.manifest))
    write_campaign(objects, "alpha", manifest["splits"]["test"][0]["publication_sha256"])
    return objects, store


@contextlib.asynccontextmanager
async def running(env, objects: FilesystemObjects, store: FilesystemStore, gpu: Gpu):
    """The control and cpu pools as the workers run them (real workflow, real planning and
    report), the gpu pool's re-scoring the stand-in."""
    drift = DriftActivities(store, objects, PROJECT)
    with ThreadPoolExecutor(8) as pool:
        async with Worker(env.client, task_queue=queues.CONTROL, workflows=[VerifierDrift]), \
                Worker(env.client, task_queue=queues.CPU, activities=[drift.plan_drift, drift.write_drift_report],
                       activity_executor=pool), \
                Worker(env.client, task_queue=queues.GPU, activities=[gpu.activity()], activity_executor=pool):
            yield


def cli(argv: list[str], address: str) -> int:
    """`arkevo` in a thread of its own (it runs its own event loop), against the test's server;
    its store is ARKEVO_VAR's (set by the test)."""
    from cli.arkevo import main

    return main([*argv, "--address", address])


async def test_drift_names_the_flipping_sample_retries_infra_and_refuses_bad_input(env, tmp_path, monkeypatch, capsys):
    var = tmp_path / "var"
    objects, store = revision_with_a_campaign(var)
    monkeypatch.setenv("ARKEVO_VAR", str(var))
    gpu = Gpu(store)
    address = env.client.service_client.config.target_host
    async with running(env, objects, store, gpu):
        result: VerifierDriftResult = await asyncio.wait_for(env.client.execute_workflow(
            "VerifierDrift", VerifierDriftInput(DatasetRef("tst", "r1")), id="verifier-drift-tst-r1",
            task_queue=queues.CONTROL, result_type=VerifierDriftResult), 60)
        assert sorted(gpu.calls) == ["alpha", "beta", "beta"]  # beta's infra fault retried once
        assert gpu.campaign_records == {"alpha": ["c1.alpha.oracle.1"], "beta": []}
        assert gpu.attacks == [True, True, True]  # by default every reference is attacked again
        assert not result.zero_drift and result.tasks_with_drift == ["beta"] and result.verdict_flips == 1
        assert result.report_key.startswith("datasets/tst/r1/drift/vc-") and result.tasks_checked == 2
        report = VerifierDriftReport.model_validate(json.loads(objects.get(result.report_key)))
        flipped = [(t.task_id, r.source, r.id) for t in report.tasks for r in t.records if r.verdict_flip]
        assert flipped == [("beta", "calibration", "reference")]
        assert report.summary.not_rescored == 1 and report.verifier_code.candidate is None
        progress = await env.client.get_workflow_handle("verifier-drift-tst-r1").query("progress")
        assert progress == {"total": 2, "done": 2, "drift": ["beta"], "location": str(var / KEYS.root)}

        # the command: the same workflow, followed; the table names what flipped; exit 1
        code = await asyncio.to_thread(cli, ["verifier", "drift", "--dataset", "tst/r1"], address)
        out = capsys.readouterr().out
        assert code == 1, out
        assert "drift beta calibration reference: pass → fail; reward 1.000 → 0.400" in out
        assert "drift in 1 task(s): beta" in out and "report: " + str(var / KEYS.drift_reports) in out
        gpu.flip = False
        gpu.attacks.clear()
        code = await asyncio.to_thread(cli, ["verifier", "drift", "--dataset", "tst/r1", "--workflow-id",
                                             "verifier-drift-again", "--deliveries-only"], address)
        out = capsys.readouterr().out
        assert code == 0 and "zero drift" in out, out
        # --deliveries-only reaches every re-scoring, the report and its summary line
        assert gpu.attacks == [False] * 3 and "attacks not run again (--deliveries-only)" in out  # beta tried twice
        again = (await env.client.get_workflow_handle("verifier-drift-again").result())["report_key"]
        assert json.loads(objects.get(again))["attacks"] is False

        # bad input: refused by the plan, nothing re-scored, nothing written
        calls, reports = len(gpu.calls), sorted(objects.list(KEYS.drift_reports))
        for bad, words in ((DatasetRef("tst", "nope"), "dataset tst/nope not found"),
                           (DatasetRef("T T", "r1"), "give NAMESPACE/REVISION")):
            with pytest.raises(WorkflowFailureError) as e:
                await env.client.execute_workflow(
                    "VerifierDrift", VerifierDriftInput(bad), id=f"verifier-drift-bad-{bad.revision}",
                    task_queue=queues.CONTROL)
            cause = e.value.cause.cause
            assert cause.type == "InvalidDriftRequest" and words in cause.message
        history = await env.client.get_workflow_handle("verifier-drift-bad-nope").fetch_history()
        failed = [ev for ev in history.events if ev.HasField("activity_task_failed_event_attributes")]
        assert len(failed) == 1  # non-retryable: one attempt
        assert len(gpu.calls) == calls and sorted(objects.list(KEYS.drift_reports)) == reports
