"""One trial: write the task package as a Harbor task directory, let a policy solve it and the
verifier grade it (in the sandbox via Harbor by default), and store delivery + report. Used by
the input baseline, calibration, pilot and evaluation alike, so every grade in the pipeline
comes from the same path. The reward is not decided here: `score_trial` applies the task's
scoring profile to the rule report (and the VL judgement, when weighted)."""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from temporalio import activity

from activities.harbor_task import write_harbor_task
from activities.policies import policy_from_name
from activities.store import ContentStore
from activities.trial_backends import TrialBackend
from contracts.payloads import TrialOutcome, TrialRequest

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
        with tempfile.TemporaryDirectory(prefix=f"arkevo-trial-{req.stage}-") as tmp:
            work = Path(tmp)
            task_dir = write_harbor_task(self.store, req.task_package, work / "task", req.identity)
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
            reward=None,  # the task's scoring profile decides (score_trial)
            success=None,
            verifier_version=req.identity.verifier_version,
            delivery=delivery,
            report=report_ref,
            started_at=started,
            finished_at=_now(),
            failed_criteria=[c["id"] for c in report["criteria"] if not c["passed"]],
            timed_out=run.timed_out,
            failure=run.failure,  # a solver failure: the attempt is still graded
        )
