"""TaskProduction: carries one seed through stages 02–07, one child workflow per stage.

Child ids derive from the parent's id (`<id>.03-authoring`), so a run's stages are easy to find
in the Web UI; `ArkevoStage` and `ArkevoSeedId` search attributes let the UI filter on them.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import SearchAttributeKey, SearchAttributePair, TypedSearchAttributes
from temporalio.exceptions import ApplicationError, ChildWorkflowError

with workflow.unsafe.imports_passed_through():
    from activities.packaging import PublishInput
    from contracts.payloads import (AdmissionInput, ProductionOptions, ProductionResult,
                                    TaskProductionInput)
    from workers import queues
    from workflows.admission import AdmissionWorkflow
    from workflows.authoring import AuthoringInput, AuthoringWorkflow
    from workflows.evaluation import EvaluationInput, EvaluationWorkflow
    from workflows.packaging import PackagingWorkflow
    from workflows.review import ReviewInput, ReviewWorkflow
    from workflows.trial_solves import TrialSolvesInput, TrialSolvesWorkflow

STAGE_KEY = SearchAttributeKey.for_keyword("ArkevoStage")
SEED_KEY = SearchAttributeKey.for_keyword("ArkevoSeedId")
STAGES = ["02-admission", "03-authoring", "04-trial-solves", "05-review", "06-evaluation",
          "07-packaging"]


def _root_message(err: BaseException) -> str:
    while getattr(err, "cause", None) is not None:
        err = err.cause
    return str(err)


@workflow.defn(name="TaskProduction")
class TaskProduction:
    def __init__(self) -> None:
        self._progress: dict = {"stage": None, "stages": {s: "pending" for s in STAGES}}
        self._seed_id: str | None = None

    @workflow.query
    def progress(self) -> dict:
        return self._progress

    async def _stage(self, stage: str, wf, arg):
        self._progress["stage"] = stage
        self._progress["stages"][stage] = "running"
        pairs = [SearchAttributePair(STAGE_KEY, stage)]
        if self._seed_id:
            pairs.append(SearchAttributePair(SEED_KEY, self._seed_id))
        workflow.upsert_search_attributes([STAGE_KEY.value_set(stage)])
        try:
            result = await workflow.execute_child_workflow(
                wf, arg,
                id=f"{workflow.info().workflow_id}.{stage}",
                task_queue=queues.CONTROL,
                search_attributes=TypedSearchAttributes(pairs),
                execution_timeout=timedelta(hours=12),
            )
        except ChildWorkflowError as e:
            self._progress["stages"][stage] = "failed"
            message = _root_message(e)
            self._progress["error"] = message
            raise ApplicationError(f"stage {stage} failed: {message}",
                                   type="StageFailed", non_retryable=True) from e
        self._progress["stages"][stage] = "completed"
        return result

    @workflow.run
    async def run(self, req: TaskProductionInput) -> ProductionResult:
        opts = req.options or ProductionOptions()
        now = lambda: workflow.now().isoformat(timespec="seconds")  # noqa: E731
        self._progress["seed"] = req.seed

        admission = await self._stage("02-admission", AdmissionWorkflow.run,
                                      AdmissionInput(req.seed, now()))
        self._seed_id = admission.seed_id
        self._progress["seed_id"] = admission.seed_id
        workflow.upsert_search_attributes([SEED_KEY.value_set(admission.seed_id)])
        defaults = admission.pipeline
        k = opts.k or defaults.k
        if k < 1:
            raise ApplicationError(f"options.k: must be at least 1, got {k}",
                                   type="InvalidOptions", non_retryable=True)

        authoring = await self._stage("03-authoring", AuthoringWorkflow.run,
                                      AuthoringInput(admission))
        self._progress["input_reward"] = authoring.input_trial.reward

        pilot = await self._stage("04-trial-solves", TrialSolvesWorkflow.run, TrialSolvesInput(
            authoring, opts.pilot_policies or defaults.pilot_policies))
        self._progress["pilot_findings"] = pilot.findings

        frozen = await self._stage("05-review", ReviewWorkflow.run, ReviewInput(
            authoring, pilot, defaults.calibration_reference_min))
        self._progress["task_version"] = frozen.task_version

        evaluation = await self._stage("06-evaluation", EvaluationWorkflow.run, EvaluationInput(
            frozen, opts.evaluation_policies or defaults.evaluation_policies, k,
            authoring.pass_threshold, authoring.scoring_profile))
        self._progress["metrics"] = [m.__dict__ for m in evaluation.metrics]

        publication = await self._stage("07-packaging", PackagingWorkflow.run, PublishInput(
            admission.seed_id, frozen, evaluation, admission.admission_record, now()))
        self._progress["publication"] = publication.path
        self._progress["stage"] = "done"
        workflow.upsert_search_attributes([STAGE_KEY.value_set("done")])

        return ProductionResult(
            seed_id=admission.seed_id,
            task_id=frozen.task_id,
            task_version=frozen.task_version,
            publication=publication,
            metrics=evaluation.metrics,
            input_reward=authoring.input_trial.reward,
        )
