"""05 review: calibrate the verifier on samples of known grade, weigh the pilot's findings, and
freeze the task version when everything holds (automatic reviewer policy)."""

import asyncio

from temporalio import workflow
from temporalio.common import VersioningBehavior
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from workflows.versioning import versioned  # the behaviour on versioned workers only
    from contracts.errors import CALIBRATION_FAILED, GRADER_GAMEABLE
    from activities.mutation_testing import MutationActivities
    from activities.review import ReviewActivities
    from contracts.payloads.review import (CalibrationInput, FreezeInput, FrozenTask, MutationInput,
                                           MutationRows, ReviewInput)
    from contracts.payloads.trials import AuthoringResult, TrialOutcome, TrialRequest
    from workflows.activity_options import CPU, GPU
    from workflows.trial_calls import grade_trial


async def grade_samples(auth: AuthoringResult, wid: str) -> list[TrialOutcome]:
    """Every calibration sample graded on the package: input and reference as stage 03 graded
    them, samples already graded on this package (model authoring) as they were, the rest run
    now as trials under `wid`."""
    by_kind = {"input": auth.input_trial, "reference": auth.reference_trial}
    by_name = {g.name: g.outcome for g in auth.graded_samples}

    async def grade(sample):
        if sample.kind in by_kind:
            return by_kind[sample.kind]
        if sample.name in by_name:
            return by_name[sample.name]
        return await grade_trial(TrialRequest(
            auth.task_package, auth.identity, sample.policy, f"{wid}/{sample.name}",
            "calibration"), auth.grading)

    return list(await asyncio.gather(*(grade(s) for s in auth.calibration_samples)))


async def mutation_rows(auth: AuthoringResult) -> MutationRows | None:
    """The gaming operators on the reference delivery (``activities/mutation_testing.py``); None
    without a reference delivery, and in histories recorded before mutation testing existed
    (``patched``: they replay without it)."""
    if auth.reference_trial.delivery is None or not workflow.patched("mutation-testing"):
        return None
    return await workflow.execute_activity_method(
        MutationActivities.mutation_test,
        MutationInput(auth.task_id, auth.task_package, auth.reference_trial.delivery, auth.grading),
        **GPU)


@workflow.defn(name="Review", versioning_behavior=versioned(VersioningBehavior.PINNED))
class ReviewWorkflow:
    @workflow.run
    async def run(self, req: ReviewInput) -> FrozenTask:
        wid, auth = workflow.info().workflow_id, req.authoring
        samples = auth.calibration_samples
        # the gaming operators run beside the samples
        outcomes, rows = await asyncio.gather(grade_samples(auth, wid), mutation_rows(auth))
        verdict = await workflow.execute_activity_method(
            ReviewActivities.judge_calibration,
            CalibrationInput(auth.task_id, auth.grading, req.reference_min, req.margin,
                             samples, list(outcomes), req.pilot.findings, rows, auth.task_package),
            **CPU)
        if verdict.survivors:  # named apart: the grader, not the samples, is what failed
            raise ApplicationError(
                f"grader of {auth.task_id} is gameable (report {verdict.report.key}): operators not "
                f"killed: {', '.join(verdict.survivors)}; " + "; ".join(verdict.misses),  # gaming:<x> = a sample
                type=GRADER_GAMEABLE, non_retryable=True,
            )
        if not verdict.passed:
            raise ApplicationError(
                f"calibration failed for {auth.task_id} (report {verdict.report.key}): "
                + "; ".join(verdict.misses),
                type=CALIBRATION_FAILED, non_retryable=True,
            )
        return await workflow.execute_activity_method(
            ReviewActivities.freeze_task,
            FreezeInput(auth.identity, auth.task_package, verdict.report, verdict.grading,
                        verdict.input_reward, req.pipeline_ref,
                        workflow.now().isoformat(timespec="seconds")),
            **CPU)
