"""06 evaluation: write the plan first, then k trials per configuration, then the report."""

import asyncio

from temporalio import workflow
from temporalio.common import VersioningBehavior

with workflow.unsafe.imports_passed_through():
    from workflows.versioning import versioned  # the behaviour on versioned workers only
    from activities.evaluation import EvaluationActivities
    from contracts.payloads.evaluation import EvaluationInput, EvaluationResult, PlanInput, ReportInput
    from contracts.payloads.trials import TrialRequest
    from workflows.activity_options import CPU
    from workflows.stage_progress import StageProgress
    from workflows.trial_calls import grade_trial_reporting


@workflow.defn(name="Evaluation", versioning_behavior=versioned(VersioningBehavior.PINNED))
class EvaluationWorkflow:
    @workflow.run
    async def run(self, req: EvaluationInput) -> EvaluationResult:
        wid, frozen = workflow.info().workflow_id, req.frozen
        plan = await workflow.execute_activity_method(
            EvaluationActivities.write_evaluation_plan,
            PlanInput(frozen, req.configs, req.k, workflow.now().isoformat(timespec="seconds")),
            **CPU)
        progress = StageProgress("06-evaluation")
        await progress.expect({f"trials {config}": req.k for config in req.configs})
        outcomes = await asyncio.gather(*(
            progress.count(f"trials {config}", grade_trial_reporting(TrialRequest(
                frozen.task_package, frozen.identity, config, f"{wid}/{config}/{attempt}",
                "evaluation", attempt), frozen.grading))
            for config in req.configs
            for attempt in range(1, req.k + 1)
        ))
        return await workflow.execute_activity_method(
            EvaluationActivities.write_evaluation_report,
            ReportInput(frozen, plan, req.k, list(outcomes)), **CPU)
