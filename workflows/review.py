"""05 review: calibrate the verifier on samples of known grade, weigh the pilot's findings, and
freeze the task version when everything holds (automatic reviewer policy).

With `review: human` (ProductionOptions), once the automatic checks pass the workflow records a
pending review (`reviews/pending/<task_id>.json`: this workflow's id, the evidence), shows
`ArkevoStage = "05-review:human-pending"`, and waits for the `review_decision` signal
(`arkevo review accept|reject`, or

    temporal workflow signal --workflow-id <id>.05-review --name review_decision \\
        --input '{"decision": "accept", "by": "ana", "reason": "renders match the brief"}'

). Accept freezes the task with the decision in its frozen record; reject is the non-retryable
`ReviewRejected`, no decision within `review_timeout_sec` is `ReviewTimedOut`: nothing is
published either way. The `human_review` query says whether it waits.
"""

import asyncio
import dataclasses
from datetime import timedelta

from temporalio import workflow
from temporalio.common import VersioningBehavior
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from workflows.versioning import versioned  # the behaviour on versioned workers only
    from contracts.errors import CALIBRATION_FAILED, GRADER_GAMEABLE, REVIEW_REJECTED, REVIEW_TIMED_OUT
    from activities.mutation_testing import MutationActivities
    from activities.review import ReviewActivities
    from contracts.payloads.review import (CalibrationInput, CalibrationVerdict, FreezeInput, FrozenTask,
                                           HumanReviewRequest, MutationInput, ReviewDecision,
                                           ReviewInput)
    from contracts.payloads.trials import AuthoringResult, MutationRows, TrialOutcome, TrialRequest
    from workflows.activity_options import CPU, GPU
    from workflows.search_attributes import STAGE_KEY
    from workflows.stage_progress import StageProgress
    from workflows.trial_calls import grade_trial

HUMAN_PENDING_STAGE = "05-review:human-pending"
DECISIONS = ("accept", "reject")


async def grade_samples(auth: AuthoringResult, wid: str,
                        progress: StageProgress | None = None) -> list[TrialOutcome]:
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

    graded = (grade(s) for s in auth.calibration_samples)
    if progress is not None:
        graded = (progress.count("samples graded", g) for g in graded)
    return list(await asyncio.gather(*graded))


async def mutation_rows(auth: AuthoringResult, progress: StageProgress | None = None) -> MutationRows | None:
    """The gaming operators on the reference delivery (``activities/mutation_testing.py``), or
    the rows model authoring carried (``AuthoringResult.mutation_rows``); None without a
    reference delivery, and in histories recorded before mutation testing existed (``patched``:
    they replay without it)."""
    if auth.reference_trial.delivery is None or not workflow.patched("mutation-testing"):
        return None
    # model authoring's accepted round ran them on this package and delivery already; histories
    # recorded before the rows were carried run them again (``patched``)
    if auth.mutation_rows is not None and workflow.patched("carried-mutation-rows"):
        return auth.mutation_rows
    return await workflow.execute_activity_method(
        MutationActivities.mutation_test,
        MutationInput(auth.task_id, auth.task_package, auth.reference_trial.delivery, auth.grading,
                      progress.target() if progress is not None else None),
        **GPU)


@workflow.defn(name="Review", versioning_behavior=versioned(VersioningBehavior.PINNED))
class ReviewWorkflow:
    def __init__(self) -> None:
        self._request: HumanReviewRequest | None = None  # set while (and after) it waits
        self._decision: ReviewDecision | None = None

    @workflow.signal(name="review_decision")
    def review_decision(self, decision: ReviewDecision) -> None:
        # only while waiting, the first well-formed decision stands
        if self._waiting() and self._decision is None and decision.decision in DECISIONS and decision.by:
            self._decision = decision

    @workflow.query(name="human_review")
    def human_review(self) -> dict:
        return {"waiting": self._waiting(),
                "request": None if self._request is None else dataclasses.asdict(self._request)}

    def _waiting(self) -> bool:
        return self._request is not None and self._request.state == "waiting"

    async def _human_gate(self, req: ReviewInput, verdict: CalibrationVerdict) -> ReviewDecision:
        """Record the pending review, wait for the decision; the accept, or a named failure."""
        info, auth = workflow.info(), req.authoring
        request = HumanReviewRequest(
            auth.task_id, info.workflow_id, info.parent.workflow_id if info.parent else "",
            verdict.report, auth.task_package, workflow.now().isoformat(timespec="seconds"),
            req.review_timeout_sec)
        await workflow.execute_activity_method(ReviewActivities.record_human_review, request, **CPU)
        workflow.upsert_search_attributes([STAGE_KEY.value_set(HUMAN_PENDING_STAGE)])
        # Waiting (query and signals) only from here: a reviewer who sees it waiting finds its
        # pending record and the Web UI's stage already in place.
        self._request = request
        try:
            await workflow.wait_condition(lambda: self._decision is not None,
                                          timeout=timedelta(seconds=req.review_timeout_sec))
        except asyncio.TimeoutError:
            self._request = dataclasses.replace(self._request, state="timed_out")
            await workflow.execute_activity_method(ReviewActivities.record_human_review, self._request, **CPU)
            raise ApplicationError(
                f"no review decision for {auth.task_id} within {req.review_timeout_sec} s: not published",
                type=REVIEW_TIMED_OUT, non_retryable=True) from None
        assert self._decision is not None  # the condition just waited for
        decision = dataclasses.replace(self._decision, at=workflow.now().isoformat(timespec="seconds"))
        state = "accepted" if decision.decision == "accept" else "rejected"
        self._request = dataclasses.replace(self._request, state=state, decision=decision)
        await workflow.execute_activity_method(ReviewActivities.record_human_review, self._request, **CPU)
        workflow.upsert_search_attributes([STAGE_KEY.value_set("05-review")])
        if state == "rejected":
            raise ApplicationError(
                f"{auth.task_id} rejected by {decision.by}: {decision.reason or 'no reason given'}",
                {"by": decision.by, "reason": decision.reason, "at": decision.at},
                type=REVIEW_REJECTED, non_retryable=True)
        return decision

    @workflow.run
    async def run(self, req: ReviewInput) -> FrozenTask:
        wid, auth = workflow.info().workflow_id, req.authoring
        samples = auth.calibration_samples
        # the gaming operators run beside the samples
        progress = StageProgress("05-review")
        await progress.expect({"samples graded": len(samples), "mutation testing": 1})
        outcomes, rows = await asyncio.gather(grade_samples(auth, wid, progress),
                                              progress.count("mutation testing", mutation_rows(auth, progress)))
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
        # only with review: human, so histories recorded without it replay unchanged
        decision = await self._human_gate(req, verdict) if req.review == "human" else None
        return await workflow.execute_activity_method(
            ReviewActivities.freeze_task,
            FreezeInput(auth.identity, auth.task_package, verdict.report, verdict.grading,
                        verdict.input_reward, req.pipeline_ref,
                        workflow.now().isoformat(timespec="seconds"), decision),
            **CPU)
