"""One trial: write the task package as a Harbor task directory, let a policy solve it and the
verifier grade it (in the sandbox via Harbor by default), and store delivery + report. Used by
the input baseline, calibration, pilot and evaluation alike, so every grade in the pipeline
comes from the same path."""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from temporalio import activity

from activities.harbor_task import HarborTaskMeta, write_harbor_task
from activities.policies import policy_from_name
from activities.store import ContentStore
from activities.trial_backends import TrialBackend
from contracts.digests import task_version_of
from contracts.payloads import BlobRef, TrialOutcome, TrialRequest
from verifiers.version import verifier_version

# What scripted policies may read on the worker side; never uploaded to the solver sandbox.
PRIVILEGED = ("solution/", "private/calibration/")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class TrialActivities:
    def __init__(self, store: ContentStore, backend: TrialBackend):
        self.store = store
        self.backend = backend

    @activity.defn(name="run_trial")
    async def run_trial(self, req: TrialRequest) -> TrialOutcome:
        started = _now()
        policy = policy_from_name(req.policy)
        version = verifier_version(self.store, req.task_package)
        with tempfile.TemporaryDirectory(prefix=f"arkevo-trial-{req.stage}-") as tmp:
            work = Path(tmp)
            task_dir = write_harbor_task(self.store, req.task_package, work / "task",
                                         self._meta(req.task_package, version))
            scripts = work / "privileged"
            for prefix in PRIVILEGED:
                self.store.materialize_tree(req.task_package, scripts / prefix, prefix=prefix)
            run = await self.backend.run(task_dir, policy, scripts, work)
            report = json.loads(run.report.read_text())
            delivery = self.store.put_file(run.delivery) if run.delivery else None
            report_ref = self.store.put_file(run.report)

        return TrialOutcome(
            trial_id=req.trial_id,
            policy=req.policy,
            stage=req.stage,
            attempt=req.attempt,
            reward=report["reward"],
            success=report["success"],
            verifier_version=version,
            delivery=delivery,
            report=report_ref,
            started_at=started,
            finished_at=_now(),
            failed_criteria=[c["id"] for c in report["criteria"] if not c["passed"]],
            timed_out=run.timed_out,
        )

    def _meta(self, package: BlobRef, version: str) -> HarborTaskMeta:
        task = self.store.get_json(self.store.tree_file(package, "tests/task.json"))
        ref = task.get("pipeline_ref") or {}
        return HarborTaskMeta(
            task_id=task["task_id"],
            task_version=task_version_of(package.sha256) if task["status"] == "frozen" else "draft",
            verifier_version=version,
            pipeline_digest=ref.get("pipeline_digest", ""),
            workflow_primary=task["workflow_primary"],
            profession_primary=task["profession_primary"],
        )
