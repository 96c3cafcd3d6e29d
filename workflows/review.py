"""05 review: calibrate the verifier on samples of known grade, weigh the pilot's findings, and
freeze the task version when everything holds (automatic reviewer policy)."""

import asyncio
from dataclasses import dataclass

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.errors import CALIBRATION_FAILED
    from activities.review import CalibrationInput, FreezeInput, ReviewActivities
    from contracts.payloads import AuthoringResult, FrozenTask, TrialRequest, TrialSolvesResult
    from workflows.activity_options import CPU
    from workflows.trial_calls import run_trial


@dataclass
class ReviewInput:
    authoring: AuthoringResult
    pilot: TrialSolvesResult
    reference_min: float


@workflow.defn(name="Review")
class ReviewWorkflow:
    @workflow.run
    async def run(self, req: ReviewInput) -> FrozenTask:
        wid = workflow.info().workflow_id
        auth = req.authoring
        samples = auth.calibration_samples

        async def grade(sample):
            if sample.kind == "input":
                return auth.input_trial  # already graded as the input baseline
            return await run_trial(TrialRequest(
                auth.task_package, sample.policy, f"{wid}/{sample.name}", "calibration"))

        outcomes = await asyncio.gather(*(grade(s) for s in samples))
        verdict = await workflow.execute_activity_method(
            ReviewActivities.judge_calibration,
            CalibrationInput(auth.task_id, auth.pass_threshold, req.reference_min,
                             samples, list(outcomes), req.pilot.findings),
            **CPU)
        if not verdict.passed:
            raise ApplicationError(
                f"calibration failed for {auth.task_id} (report {verdict.report.key}): "
                + "; ".join(verdict.misses),
                type=CALIBRATION_FAILED, non_retryable=True,
            )
        reference = outcomes[[s.kind for s in samples].index("reference")]
        return await workflow.execute_activity_method(
            ReviewActivities.freeze_task,
            FreezeInput(auth.task_id, auth.task_package, verdict.report,
                        reference.verifier_version, auth.input_trial.reward,
                        workflow.now().isoformat(timespec="seconds")),
            **CPU)
