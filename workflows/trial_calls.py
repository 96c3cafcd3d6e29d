"""Running trials from a workflow: infra failures that outlive their retries are reported on
the trial (reward null, exception set), never turned into a score of 0."""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities.trials import TrialActivities
    from contracts.payloads import TrialOutcome, TrialRequest
    from workflows.activity_options import GPU


async def run_trial(req: TrialRequest) -> TrialOutcome:
    return await workflow.execute_activity_method(TrialActivities.run_trial, req, **GPU)


async def run_trial_reporting(req: TrialRequest) -> TrialOutcome:
    try:
        return await run_trial(req)
    except ActivityError as e:
        cause = e.cause or e
        workflow.logger.warning("trial %s failed after retries: %s", req.trial_id, cause)
        now = workflow.now().isoformat(timespec="seconds")
        return TrialOutcome(
            trial_id=req.trial_id, policy=req.policy, stage=req.stage, attempt=req.attempt,
            reward=None, success=None, verifier_version=None, started_at=now, finished_at=now,
            exception={"type": type(cause).__name__, "message": str(cause)},
        )
