"""Stage 03's work on a checked draft, shared by the Authoring stage (a human draft) and by
model authoring's check rounds (each authored draft): build the workspace, assemble the package,
grade the input baseline and the reference deliverable."""

import asyncio
import dataclasses

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.authoring import AuthoringActivities
    from contracts.errors import AUTHOR_SCRIPT_FAILED, evidence_too_coarse
    from activities.evidence import EvidenceActivities
    from contracts.payloads.admission import DraftPlan
    from contracts.payloads.authoring import AssembleInput, BuildWorkspaceInput
    from contracts.payloads.common import BlobRef
    from contracts.payloads.trials import AuthoringResult, TrialRequest
    from contracts.payloads.vl_grading import RenderEvidenceInput
    from workflows.activity_options import CPU, GPU
    from workflows.stage_progress import StageProgress
    from workflows.trial_calls import run_trial, score


async def prepare_task(seed_tree: BlobRef, reference_project: str, start_mode: str,
                       draft: DraftPlan, vl_judge: str, wid: str) -> AuthoringResult:
    """Package a checked draft and grade its input and reference (trial ids under `wid`)."""
    progress = StageProgress("03-authoring")
    await progress.expect({"trials graded": 2})
    build = await workflow.execute_activity_method(
        AuthoringActivities.build_workspace,
        BuildWorkspaceInput(seed_tree, reference_project, start_mode), **GPU)
    assembled = await workflow.execute_activity_method(
        AuthoringActivities.assemble_task_package,
        AssembleInput(seed_tree, build, draft, vl_judge), **CPU)
    package, identity, grading = assembled.task_package, assembled.identity, assembled.grading
    baseline, reference = await asyncio.gather(
        run_trial(TrialRequest(package, identity, "nop", f"{wid}/input-baseline", "authoring")),
        run_trial(TrialRequest(package, identity, "oracle", f"{wid}/reference", "authoring")))
    if grading.uses_vl:
        assert grading.judge_config is not None  # a task graded with VL has its judge.json
        rendered = await workflow.execute_activity_method(
            EvidenceActivities.render_evidence,
            RenderEvidenceInput(reference.delivery, grading.judge_config, assembled.graded_names), **GPU)
        if rendered.evidence is None:
            raise ApplicationError(
                f"solution/solve.py: the reference deliverable cannot be rendered for the VL "
                f"judge: {rendered.error}", type=AUTHOR_SCRIPT_FAILED, non_retryable=True)
        if rendered.unseen:  # a judge that cannot see a graded part is no judge of it
            raise evidence_too_coarse(rendered.unseen)
        grading = dataclasses.replace(grading, reference_evidence=rendered.evidence)
    baseline, reference = await asyncio.gather(progress.count("trials graded", score(baseline, grading)),
                                               progress.count("trials graded", score(reference, grading)))
    return AuthoringResult(
        task_id=identity.task_id,
        task_package=package,
        identity=identity,
        grading=grading,
        input_trial=baseline,
        reference_trial=reference,
        calibration_samples=draft.calibration_samples,
    )
