"""06 evaluation: write the plan first, then k trials per configuration, then the report."""

import asyncio
from dataclasses import dataclass

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.evaluation import EvaluationActivities, PlanInput, ReportInput
    from contracts.payloads import EvaluationResult, FrozenTask, TrialRequest
    from workflows.activity_options import CPU
    from workflows.trial_calls import run_trial_reporting


@dataclass
class EvaluationInput:
    frozen: FrozenTask
    configs: list[str]
    k: int
    pass_threshold: float
    scoring_profile: dict


@workflow.defn(name="Evaluation")
class EvaluationWorkflow:
    @workflow.run
    async def run(self, req: EvaluationInput) -> EvaluationResult:
        wid = workflow.info().workflow_id
        plan = await workflow.execute_activity_method(
            EvaluationActivities.write_evaluation_plan,
            PlanInput(req.frozen, req.configs, req.k, req.pass_threshold, req.scoring_profile,
                      workflow.now().isoformat(timespec="seconds")),
            **CPU)
        outcomes = await asyncio.gather(*(
            run_trial_reporting(TrialRequest(
                req.frozen.task_package, config, f"{wid}/{config}/{attempt}", "evaluation", attempt))
            for config in req.configs
            for attempt in range(1, req.k + 1)
        ))
        return await workflow.execute_activity_method(
            EvaluationActivities.write_evaluation_report,
            ReportInput(req.frozen, plan, req.k, req.scoring_profile, list(outcomes)), **CPU)
