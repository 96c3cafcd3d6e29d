"""03 authoring: validate the draft, build the starting workspace in Blender, assemble the task
package, and grade the untouched input (the input baseline)."""

from dataclasses import dataclass

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.authoring import (AssembleInput, AuthoringActivities, BuildWorkspaceInput)
    from contracts.payloads import AdmissionResult, AuthoringResult, TrialRequest
    from workflows.activity_options import CPU, GPU
    from workflows.trial_calls import run_trial


@dataclass
class AuthoringInput:
    admission: AdmissionResult


@workflow.defn(name="Authoring")
class AuthoringWorkflow:
    @workflow.run
    async def run(self, req: AuthoringInput) -> AuthoringResult:
        adm = req.admission
        draft = await workflow.execute_activity_method(
            AuthoringActivities.validate_draft, adm.seed_tree, **CPU)
        build = await workflow.execute_activity_method(
            AuthoringActivities.build_workspace,
            BuildWorkspaceInput(adm.seed_tree, adm.reference_project, adm.start_mode), **GPU)
        package = await workflow.execute_activity_method(
            AuthoringActivities.assemble_task_package, AssembleInput(adm.seed_tree, build), **CPU)
        baseline = await run_trial(TrialRequest(
            package, "nop", f"{workflow.info().workflow_id}/input-baseline", "authoring"))
        return AuthoringResult(
            task_id=draft.task_id,
            task_package=package,
            pass_threshold=draft.pass_threshold,
            scoring_profile=draft.scoring_profile,
            input_trial=baseline,
            calibration_samples=draft.calibration_samples,
        )
