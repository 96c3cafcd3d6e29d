"""The verifier drift check (docs/verifier-drift.md): which stored verdicts of a dataset revision
the verifier in force -- or a candidate's probe code -- would change.

`VerifierDrift` plans on the cpu pool (the request checked, the revision's publications and the
campaign trials over them listed), re-scores each publication on the gpu pool (Blender: one
`drift_task` per task, as many at once as the pool has slots) and writes the report beside the
revision on the cpu pool. Bad input fails at once with the non-retryable `InvalidDriftRequest`
and nothing is written; an infrastructure fault is retried (`activity_options`).

    temporal workflow start --type VerifierDrift --task-queue arkevo-control \\
        --workflow-id verifier-drift-demo-r1 \\
        --input '{"dataset": {"namespace": "demo", "revision": "r1"}, "tolerance": 0.01}'
"""

from __future__ import annotations

import asyncio

from temporalio import workflow
from temporalio.common import VersioningBehavior

with workflow.unsafe.imports_passed_through():
    from workflows.versioning import versioned  # the behaviour on versioned workers only
    from activities.verifier_drift import DriftActivities
    from contracts.payloads.verifier_drift import (DriftReportInput, DriftTaskInput, DriftTaskResult,
                                                   VerifierDriftInput, VerifierDriftResult)
    from workflows.activity_options import CPU, GPU


@workflow.defn(name="VerifierDrift", versioning_behavior=versioned(VersioningBehavior.PINNED))
class VerifierDrift:
    """Pinned: its report names one verifier code, so every task of a check runs on one version."""

    def __init__(self) -> None:
        self._total: int | None = None
        self._done = 0
        self._drift: list[str] = []
        self._location: str | None = None

    @workflow.query
    def progress(self) -> dict:
        """Tasks planned and re-scored so far, and those whose verdicts drift."""
        return {"total": self._total, "done": self._done, "drift": sorted(self._drift),
                "location": self._location}

    @workflow.run
    async def run(self, req: VerifierDriftInput) -> VerifierDriftResult:
        plan = await workflow.execute_activity_method(DriftActivities.plan_drift, req, **CPU)
        self._total, self._location = len(plan.tasks), plan.location

        async def one(task: DriftTaskInput) -> DriftTaskResult:
            result = await workflow.execute_activity_method(DriftActivities.drift_task, task, **GPU)
            self._done += 1
            if result.drift:
                self._drift.append(result.task_id)
            return result

        results = await asyncio.gather(*(one(t) for t in plan.tasks))
        return await workflow.execute_activity_method(
            DriftActivities.write_drift_report,
            DriftReportInput(req, plan, list(results), workflow.now().isoformat(timespec="seconds")), **CPU)
