"""Running and grading trials from a workflow — the one path every grade takes:

    run_trial (gpu: Harbor trial in the sandbox -> delivery + rule report)
    -> VLGrading child (evidence renders on gpu, judge on llm), when the profile weights VL
    -> score_trial (cpu: the task's scoring profile -> reward, success)

Failure attribution (docs/failures.md): a solver failure comes back from run_trial as a graded
attempt; an author's broken script is a non-retryable AuthorScriptFailed that fails the stage;
an infra failure is retried by Temporal and, when it outlives its retries in a stage that
reports it (pilot, evaluation), recorded on the trial with kind `infra` — reward null, never 0.
"""

from __future__ import annotations

import dataclasses

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError, is_cancelled_exception

with workflow.unsafe.imports_passed_through():
    from contracts.errors import AUTHOR_SCRIPT_FAILED
    from activities.scoring import ScoringActivities
    from activities.trials import TrialActivities
    from contracts import queues
    from contracts.payloads.authoring import GradingSpec
    from contracts.payloads.trials import ScoreTrialInput, TrialFailure, TrialOutcome, TrialRequest
    from contracts.payloads.vl_grading import VLGradingInput
    from workflows.activity_options import CPU, GPU
    from workflows.vl_grading import VLGradingWorkflow

CANCELLED_NOT_RECORDED = "trial-cancelled-not-recorded"


def with_evidence(req: TrialRequest, grading: GradingSpec) -> TrialRequest:
    """A trial whose grade will judge its evidence: the verifier renders it after the probe, in
    the probe's Blender, so the VL grading finds it in the worker's cache."""
    if grading.uses_vl and grading.judge_config is not None and req.judge_config is None:
        return dataclasses.replace(req, judge_config=grading.judge_config)
    return req


async def run_trial(req: TrialRequest, attempts: int | None = None) -> TrialOutcome:
    """`attempts`: tries against infrastructure faults (None: the gpu pool's default)."""
    options = GPU if attempts is None else dict(
        GPU, retry_policy=dataclasses.replace(GPU["retry_policy"], maximum_attempts=attempts))
    return await workflow.execute_activity_method(TrialActivities.run_trial, req, **options)


async def score(outcome: TrialOutcome, grading: GradingSpec) -> TrialOutcome:
    """Apply the task's scoring profile, with the VL judgement first when it is weighted."""
    vl = None
    if grading.uses_vl and outcome.report is not None:
        assert grading.judge_config is not None  # a task graded with VL has its judge.json
        vl = await workflow.execute_child_workflow(
            VLGradingWorkflow.run,
            VLGradingInput(grading.task_id, grading.judge_config, outcome.delivery,
                           grading.judge or "image-metric", grading.reference_evidence),
            id=f"{outcome.trial_id}.vl", task_queue=queues.CONTROL)
    return await workflow.execute_activity_method(
        ScoringActivities.score_trial, ScoreTrialInput(grading, outcome, vl), **CPU)


async def grade_trial(req: TrialRequest, grading: GradingSpec) -> TrialOutcome:
    return await score(await run_trial(with_evidence(req, grading)), grading)


async def grade_trial_reporting(req: TrialRequest, grading: GradingSpec,
                                attempts: int | None = None) -> TrialOutcome:
    """Like grade_trial, but an infra failure that outlived its retries becomes the trial's
    record (kind infra) instead of failing the stage. Author failures still fail it."""
    try:
        outcome = await run_trial(with_evidence(req, grading), attempts)
    except ActivityError as e:
        cause = e.cause or e
        if isinstance(cause, ApplicationError) and cause.type == AUTHOR_SCRIPT_FAILED:
            raise
        # A cancelled trial (its campaign's smoke trial failed beside it) ran to no grade: it
        # is not an infrastructure exception to record. Before the patch, one was recorded.
        if is_cancelled_exception(e) and workflow.patched(CANCELLED_NOT_RECORDED):
            raise
        workflow.logger.warning("trial %s failed after retries: %s", req.trial_id, cause)
        now = workflow.now().isoformat(timespec="seconds")
        kind = cause.type if isinstance(cause, ApplicationError) and cause.type else type(cause).__name__
        return TrialOutcome(
            trial_id=req.trial_id, policy=req.policy, stage=req.stage, attempt=req.attempt,
            reward=None, success=None, verifier_version=None, started_at=now, finished_at=now,
            exception={"type": kind, "message": str(cause)},
            failure=TrialFailure("infra", kind, str(cause),
                                 {"retries_exhausted": True, "activity": "run_trial"}),
        )
    return await score(outcome, grading)

