"""Model authoring (stage 03 for a seed without a draft; docs/authoring.md).

    check_model_endpoints (author on gpu, reviewer on llm: fail in seconds when unset)
    build_workspace (the reference scene the author inspects)
    round n = 1..max_author_rounds:
        author_round (gpu: tool loop in the worker, acting in the authoring sandbox)
        CheckDelivery child <id>.round-<n>: admission checks + calibration (stage 05's judgement)
        failed  -> its findings are the next round's feedback
        passed  -> final_review (llm, fresh context): accept | revise (findings) | reject
    write_authoring_record (cpu): rounds, verdicts, models, tokens, wall time

Outcomes: authored (the accepted round's prepared package goes on to stages 04-07),
needs_input (the author says what the materials lack), rejected (reasons). The `rounds` query
shows every round's verdict while it runs.
"""

from __future__ import annotations

import dataclasses

from temporalio import workflow
from temporalio.common import VersioningBehavior
from temporalio.exceptions import ActivityError, ApplicationError, ChildWorkflowError

with workflow.unsafe.imports_passed_through():
    from workflows.versioning import versioned  # the behaviour on versioned workers only
    from activities.authoring import AuthoringActivities
    from contracts.errors import AUTHOR_SCRIPT_FAILED, EVIDENCE_TOO_COARSE
    from activities.model_drafts import ModelDraftActivities
    from activities.review import ReviewActivities
    from contracts import queues
    from contracts.payloads.authoring import BuildWorkspaceInput
    from contracts.payloads.model_authoring import (AuthoringRecordInput, AuthorRoundInput, AuthorRoundResult,
                                                    CheckDraftInput, DeliveryCheck, EndpointCheckInput,
                                                    FinalReviewInput, FinalReviewVerdict, ModelAuthoringInput,
                                                    ModelAuthoringResult, ModelUsage)
    from contracts.payloads.review import CalibrationInput
    from contracts.payloads.trials import GradedSample
    from workflows.activity_options import AUTHOR, CPU, GPU, MODEL_CALL, endpoint_check
    from workflows.failures import root_cause
    from workflows.review import grade_samples, mutation_rows
    from workflows.task_preparation import prepare_task


@workflow.defn(name="CheckDelivery", versioning_behavior=versioned(VersioningBehavior.PINNED))
class CheckDeliveryWorkflow:
    """One round's check_delivery: the draft admitted like a human one (plus the authored-draft
    rules), packaged, and every calibration sample graded and judged as stage 05 judges. A
    failure the draft causes (a check, a script that raises) is a finding, not an error."""

    @workflow.run
    async def run(self, req: CheckDraftInput) -> DeliveryCheck:
        wid = workflow.info().workflow_id
        admitted = await workflow.execute_activity_method(
            ModelDraftActivities.admit_draft, req, **CPU)
        if not admitted.ok:
            return DeliveryCheck(req.round, False, admitted.findings)
        assert admitted.seed_tree is not None and admitted.draft is not None  # admitted: both set
        try:
            prepared = await prepare_task(admitted.seed_tree, req.reference_project,
                                          req.start_mode, admitted.draft, req.run.vl_judge, wid)
            samples = prepared.calibration_samples
            ref = prepared.reference_trial
            if ref.reward is None or ref.reward < req.run.reference_min or not ref.success:
                # No sample can be judged against a reference that fails: the round's finding
                # is the reference; the defects and variants wait for a draft whose does not.
                samples = [s for s in samples if s.kind in ("reference", "input")]
                prepared = dataclasses.replace(prepared, calibration_samples=samples)
            outcomes = await grade_samples(prepared, wid)
            rows = await mutation_rows(prepared) if len(samples) > 2 else None
        except (ActivityError, ChildWorkflowError, ApplicationError) as e:  # the last: prepare_task's own
            root = root_cause(e)
            if isinstance(root, ApplicationError) and root.type == AUTHOR_SCRIPT_FAILED:
                details = root.details[0] if root.details and isinstance(root.details[0], dict) else {}
                finding = {"check": "script", "message": root.message}
                if details.get("file"):
                    finding["file"] = details["file"]
                return DeliveryCheck(req.round, False, [finding], admitted.seed_tree, admitted.draft)
            if isinstance(root, ApplicationError) and root.type == EVIDENCE_TOO_COARSE:
                finding = {"check": "evidence", "file": "draft/judge.json", "message": root.message}
                return DeliveryCheck(req.round, False, [finding], admitted.seed_tree, admitted.draft)
            raise
        verdict = await workflow.execute_activity_method(
            ReviewActivities.judge_calibration,
            CalibrationInput(prepared.task_id, prepared.grading, req.run.reference_min,
                             req.run.margin, samples, outcomes, [], rows, prepared.task_package), **CPU)
        feedback = await workflow.execute_activity_method(
            ModelDraftActivities.calibration_feedback, verdict.report, **CPU)
        graded = [GradedSample(s.name, o) for s, o in zip(samples, outcomes)
                  if s.kind not in ("input", "reference")]
        prepared = dataclasses.replace(prepared, graded_samples=graded, mutation_rows=rows)
        return DeliveryCheck(req.round, verdict.passed, [] if verdict.passed else feedback.findings,
                             admitted.seed_tree, admitted.draft, prepared, verdict.report,
                             feedback.margin)


@workflow.defn(name="ModelAuthoring", versioning_behavior=versioned(VersioningBehavior.PINNED))
class ModelAuthoringWorkflow:
    def __init__(self) -> None:
        self._rounds: list[dict] = []

    @workflow.query
    def rounds(self) -> list[dict]:
        return self._rounds

    @workflow.run
    async def run(self, req: ModelAuthoringInput) -> ModelAuthoringResult:
        wid = workflow.info().workflow_id
        started = workflow.now().isoformat(timespec="seconds")
        usage: list[ModelUsage] = []
        # Where each role's calls run: the author's loop on gpu workers, the reviewer's on llm.
        for role, pool in (("author", queues.GPU), ("reviewer", queues.LLM)):
            await workflow.execute_activity("check_model_endpoints", EndpointCheckInput([role]),
                                            result_type=list[dict], **endpoint_check(pool))
        build = await workflow.execute_activity_method(
            AuthoringActivities.build_workspace,
            BuildWorkspaceInput(req.seed_tree, req.reference_project, req.start_mode), **GPU)

        async def finish(outcome: str, reasons: list[str], check: DeliveryCheck | None = None):
            record = await workflow.execute_activity_method(
                ModelDraftActivities.write_authoring_record,
                AuthoringRecordInput(req.seed_id, outcome, reasons, self._rounds, usage, started,
                                     workflow.now().isoformat(timespec="seconds"),
                                     draft if check else None), **CPU)
            return ModelAuthoringResult(outcome, reasons, record, check)

        feedback: list[dict] = []
        draft = None
        for n in range(1, req.run.max_author_rounds + 1):
            authored: AuthorRoundResult = await workflow.execute_activity(
                "author_round",
                AuthorRoundInput(req.seed_id, req.seed_tree, build, n, draft, feedback),
                result_type=AuthorRoundResult, **AUTHOR)
            usage.append(authored.usage)
            entry = {"round": n, "author": {
                "outcome": authored.outcome, "summary": authored.summary,
                "missing": authored.missing, "transcript": authored.transcript.as_dict(),
                "draft": authored.draft.as_dict() if authored.draft else None,
                "usage": dataclasses.asdict(authored.usage)}, "feedback_given": feedback}
            self._rounds.append(entry)
            if authored.outcome == "needs_input":
                return await finish("needs_input", authored.missing or [authored.summary])
            if authored.draft is not None:
                draft = authored.draft
            if authored.outcome != "submitted":
                feedback = [{"check": "submission", "message": "the round ended without submit "
                             "(step budget spent); finish the draft and call submit"}]
                entry["verdict"] = "no_submission"
                continue
            assert draft is not None  # submit refuses an empty draft/: a submitted round wrote one
            check = await workflow.execute_child_workflow(
                CheckDeliveryWorkflow.run,
                CheckDraftInput(req.seed_id, req.seed_tree, draft, req.reference_project,
                                req.start_mode, req.run, n),
                id=f"{wid}.round-{n}", task_queue=queues.CONTROL)
            entry["check"] = {"passed": check.passed, "findings": check.findings,
                              "margin": check.margin,
                              "calibration_report": check.calibration_report.as_dict()
                              if check.calibration_report else None}
            if not check.passed:
                entry["verdict"] = "check_failed"
                feedback = check.findings
                continue
            # a passed check ran to the end: its seed tree and calibration report are set
            assert check.seed_tree is not None and check.calibration_report is not None
            review: FinalReviewVerdict = await workflow.execute_activity(
                "final_review",
                FinalReviewInput(req.seed_id, check.seed_tree, check.calibration_report, n),
                result_type=FinalReviewVerdict, **MODEL_CALL)
            usage.append(review.usage)
            entry["review"] = {"verdict": review.verdict, "reasons": review.reasons,
                               "checks": review.checks, "facts": review.facts,
                               "transcript": review.transcript.as_dict()}
            entry["verdict"] = review.verdict
            if review.verdict == "accept":
                return await finish("authored", [], check)
            if review.verdict == "reject":
                return await finish("rejected", review.reasons)
            feedback = [{"check": "review", "message": r} for r in review.reasons]
        last = [f.get("message", "") for f in feedback]
        return await finish("rejected", [f"no accepted draft after {req.run.max_author_rounds} "
                                         f"round(s)", *last])
