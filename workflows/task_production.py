"""TaskProduction: carries one seed through stages 02–07, one child workflow per stage.

Child ids derive from the parent's id (`<id>.03-authoring`), so a run's stages are easy to find
in the Web UI; `ArkevoStage` and `ArkevoSeedId` search attributes let the UI filter on them.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import SearchAttributePair, TypedSearchAttributes, VersioningBehavior
from temporalio.exceptions import ApplicationError, ChildWorkflowError

with workflow.unsafe.imports_passed_through():
    from workflows.versioning import versioned  # the behaviour on versioned workers only
    from contracts.errors import AUTHOR_SCRIPT_FAILED, EVIDENCE_TOO_COARSE
    from contracts import queues
    from contracts.payloads.admission import AdmissionInput
    from contracts.payloads.authoring import AuthoringInput
    from contracts.payloads.common import STAGE_PROGRESS_SIGNAL, StageCounts, TaskProductionInput
    from contracts.payloads.evaluation import EvaluationInput
    from contracts.payloads.packaging import ProductionResult, PublishInput
    from contracts.payloads.review import ReviewInput
    from contracts.payloads.trials import TrialSolvesInput, failure_counts
    from workflows.admission import AdmissionWorkflow
    from workflows.authoring import AuthoringWorkflow
    from workflows.evaluation import EvaluationWorkflow
    from workflows.failures import root_cause
    from workflows.packaging import PackagingWorkflow
    from workflows.review import ReviewWorkflow
    from workflows.search_attributes import SEED_KEY, STAGE_KEY
    from workflows.trial_solves import TrialSolvesWorkflow

STAGES = ["02-admission", "03-authoring", "04-trial-solves", "05-review", "06-evaluation",
          "07-packaging"]


@workflow.defn(name="TaskProduction", versioning_behavior=versioned(VersioningBehavior.AUTO_UPGRADE))
class TaskProduction:
    def __init__(self) -> None:
        self._progress: dict = {"stage": None, "stages": {s: "pending" for s in STAGES},
                                "failures": {"infra": 0, "solver": 0, "author": 0}}
        self._seed_id: str | None = None

    @workflow.query
    def progress(self) -> dict:
        return self._progress

    @workflow.signal(name=STAGE_PROGRESS_SIGNAL)
    def stage_progress(self, update: StageCounts) -> None:
        """Counts inside a running stage, from its workflow (workflows/stage_progress.py), shown
        as "done/total". Signals may arrive out of order: the largest count of each stands."""
        shown = self._progress.setdefault("detail", {}).setdefault(update.stage, {})
        for name, (done, total) in update.counts.items():
            if name not in shown or done >= int(shown[name].split("/")[0]):
                shown[name] = f"{done}/{total}"

    async def _stage(self, stage: str, wf, arg, timeout: timedelta = timedelta(hours=12)):
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
                execution_timeout=timeout,
            )
        except ChildWorkflowError as e:
            self._progress["stages"][stage] = "failed"
            root = root_cause(e)
            message = str(root)
            self._progress["error"] = message
            if isinstance(root, ApplicationError) and root.type in (AUTHOR_SCRIPT_FAILED, EVIDENCE_TOO_COARSE):
                self._progress["failures"]["author"] += 1
            raise ApplicationError(f"stage {stage} failed: {message}",
                                   {"stage": stage, "type": getattr(root, "type", None) or type(root).__name__},
                                   type="StageFailed", non_retryable=True) from e
        self._progress["stages"][stage] = "completed"
        return result

    def _count_failures(self, outcomes) -> None:
        """Trials by failure kind, over the whole run (reports and the progress query)."""
        counts = self._progress["failures"]
        for kind, n in failure_counts(list(outcomes)).items():
            counts[kind] = counts.get(kind, 0) + n

    @workflow.run
    async def run(self, req: TaskProductionInput) -> ProductionResult:
        now = lambda: workflow.now().isoformat(timespec="seconds")  # noqa: E731
        self._progress["seed"] = req.seed

        admission = await self._stage("02-admission", AdmissionWorkflow.run,
                                      AdmissionInput(req.seed, now(), req.options,
                                                     req.seed_tree))
        self._seed_id = admission.seed_id
        self._progress["seed_id"] = admission.seed_id
        workflow.upsert_search_attributes([SEED_KEY.value_set(admission.seed_id)])
        run = admission.run

        authoring = await self._stage("03-authoring", AuthoringWorkflow.run,
                                      AuthoringInput(admission))
        self._progress["authoring"] = admission.authoring
        if authoring.authoring_record is not None:
            self._progress["authoring_record"] = authoring.authoring_record.key
        self._progress["input_reward"] = authoring.input_trial.reward
        self._progress["scoring_profile"] = authoring.grading.profile
        self._count_failures([authoring.input_trial, authoring.reference_trial])

        pilot = await self._stage("04-trial-solves", TrialSolvesWorkflow.run,
                                  TrialSolvesInput(authoring, run.pilot_policies))
        self._progress["pilot_findings"] = pilot.findings
        # Only the pilot's own trials: the ones it carried from stage 03 are counted there.
        self._count_failures([t for t in pilot.trials if t.stage == "pilot"])

        frozen = await self._stage("05-review", ReviewWorkflow.run, ReviewInput(
            authoring, pilot, run.reference_min, run.margin, run.pipeline_ref,
            run.review, run.review_timeout_sec),
            # a human review may wait longer than the stage's usual 12 hours
            timedelta(hours=12) + timedelta(seconds=run.review_timeout_sec if run.review == "human" else 0))
        self._progress["task_version"] = frozen.task_version

        evaluation = await self._stage("06-evaluation", EvaluationWorkflow.run,
                                       EvaluationInput(frozen, run.evaluation_policies, run.k))
        self._progress["metrics"] = [m.__dict__ for m in evaluation.metrics]
        for m in evaluation.metrics:
            for kind, n in m.failures.items():
                self._progress["failures"][kind] = self._progress["failures"].get(kind, 0) + n

        publication = await self._stage("07-packaging", PackagingWorkflow.run, PublishInput(
            admission.seed_id, frozen, evaluation, admission.admission_record, now(),
            authoring.authoring_record, req.dataset, list(admission.privacy_pending),
            pilot_record=pilot.record))
        self._progress["publication"] = publication.path
        self._progress["stage"] = "done"
        workflow.upsert_search_attributes([STAGE_KEY.value_set("done")])

        return ProductionResult(
            seed_id=admission.seed_id,
            task_id=frozen.task_id,
            task_version=frozen.task_version,
            publication=publication,
            metrics=evaluation.metrics,
            input_reward=frozen.input_reward,
            failures=dict(self._progress["failures"]),
        )
