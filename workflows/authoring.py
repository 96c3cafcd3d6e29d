"""03 authoring: build the starting workspace in the sandbox, assemble the task package from
the checked draft admission carried, run the reference solution (the reference deliverable,
whose renders the image-metric judge compares against) and grade the untouched input (the
input baseline)."""

import asyncio
import dataclasses

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.authoring import AuthoringActivities
    from activities.errors import AUTHOR_SCRIPT_FAILED
    from activities.evidence import EvidenceActivities
    from contracts.payloads import (AssembleInput, AuthoringInput, AuthoringResult,
                                    BuildWorkspaceInput, RenderEvidenceInput, TrialRequest)
    from workflows.activity_options import CPU, GPU
    from workflows.trial_calls import run_trial, score


@workflow.defn(name="Authoring")
class AuthoringWorkflow:
    @workflow.run
    async def run(self, req: AuthoringInput) -> AuthoringResult:
        adm, wid = req.admission, workflow.info().workflow_id
        build = await workflow.execute_activity_method(
            AuthoringActivities.build_workspace,
            BuildWorkspaceInput(adm.seed_tree, adm.reference_project, adm.start_mode), **GPU)
        assembled = await workflow.execute_activity_method(
            AuthoringActivities.assemble_task_package,
            AssembleInput(adm.seed_tree, build, adm.draft, adm.run.vl_judge), **CPU)
        package, identity, grading = assembled.task_package, assembled.identity, assembled.grading
        baseline, reference = await asyncio.gather(
            run_trial(TrialRequest(package, identity, "nop", f"{wid}/input-baseline", "authoring")),
            run_trial(TrialRequest(package, identity, "oracle", f"{wid}/reference", "authoring")))
        if grading.uses_vl:
            rendered = await workflow.execute_activity_method(
                EvidenceActivities.render_evidence,
                RenderEvidenceInput(reference.delivery, grading.judge_config), **GPU)
            if rendered.evidence is None:
                raise ApplicationError(
                    f"solution/solve.py: the reference deliverable cannot be rendered for the VL "
                    f"judge: {rendered.error}", type=AUTHOR_SCRIPT_FAILED, non_retryable=True)
            grading = dataclasses.replace(grading, reference_evidence=rendered.evidence)
        baseline, reference = await asyncio.gather(score(baseline, grading), score(reference, grading))
        return AuthoringResult(
            task_id=identity.task_id,
            task_package=package,
            identity=identity,
            grading=grading,
            input_trial=baseline,
            reference_trial=reference,
            calibration_samples=adm.draft.calibration_samples,
        )
