"""One trial: materialise the task package, let a policy solve, verify the delivery in a separate
folder, and store delivery + report. Used by the input baseline, calibration, pilot and
evaluation alike, so every grade in the pipeline comes from the same path."""

from __future__ import annotations

import json
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from temporalio import activity

from activities.store import ContentStore
from activities.trial_runner import TrialLayout, TrialRunner, policy_from_name
from contracts.payloads import TrialOutcome, TrialRequest
from verifiers.version import verifier_version


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class TrialActivities:
    def __init__(self, store: ContentStore, runner: TrialRunner):
        self.store = store
        self.runner = runner

    @activity.defn(name="run_trial")
    async def run_trial(self, req: TrialRequest) -> TrialOutcome:
        started = _now()
        policy = policy_from_name(req.policy)
        with tempfile.TemporaryDirectory(prefix=f"arkevo-trial-{req.stage}-") as tmp:
            layout = TrialLayout(Path(tmp))
            self._lay_out(req, layout)
            await policy.solve(layout, self.runner)

            # The verifier gets its own copy: it never reads the solver's workspace.
            delivered = layout.verifier / "delivery" / "result.blend"
            delivered.parent.mkdir(parents=True, exist_ok=True)
            delivery_ref = None
            if layout.delivery.is_file():
                shutil.copyfile(layout.delivery, delivered)
                delivery_ref = self.store.put_file(delivered)
            report_path = await self.runner.run_verifier(layout)
            report = json.loads(report_path.read_text())
            report_ref = self.store.put_file(report_path)

        return TrialOutcome(
            trial_id=req.trial_id,
            policy=req.policy,
            stage=req.stage,
            attempt=req.attempt,
            reward=report["reward"],
            success=report["success"],
            verifier_version=verifier_version(self.store, req.task_package),
            delivery=delivery_ref,
            report=report_ref,
            started_at=started,
            finished_at=_now(),
            failed_criteria=[c["id"] for c in report["criteria"] if not c["passed"]],
        )

    def _lay_out(self, req: TrialRequest, layout: TrialLayout) -> None:
        pkg = req.task_package
        self.store.materialize_tree(pkg, layout.workspace, prefix="workspace/")
        (layout.workspace / "outputs").mkdir(parents=True, exist_ok=True)
        self.store.fetch_to(self.store.tree_file(pkg, "instruction.md"), layout.root / "instruction.md")
        self.store.materialize_tree(pkg, layout.verifier / "tests", prefix="tests/")
        for prefix in ("solution/", "private/calibration/"):
            self.store.materialize_tree(pkg, layout.privileged / prefix, prefix=prefix)
        layout.logs.mkdir(parents=True, exist_ok=True)
