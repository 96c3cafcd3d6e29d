"""What each pool runs. Activities are methods of classes that receive their dependencies."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from temporalio.client import Client
from temporalio.worker import Worker

from activities.admission import AdmissionActivities
from activities.author_model import AuthorActivities
from activities.authoring import AuthoringActivities
from activities.campaigns import CampaignActivities
from activities.datasets import DatasetActivities
from activities.derivation import DerivationActivities
from activities.draft_review import ReviewerActivities
from activities.evaluation import EvaluationActivities
from activities.evidence import EvidenceActivities
from activities.model_drafts import ModelDraftActivities
from activities.packaging import PackagingActivities
from activities.review import ReviewActivities
from activities.scoring import ScoringActivities
from activities.trial_backends import LocalBackend, TrialBackend, backend_from_env
from activities.trials import TrialActivities
from activities.vl_judge import JudgeActivities
from contracts import queues
from sandbox.script_run import LOCAL
from workers.settings import PROJECT_ROOT, Settings
from workflows.admission import AdmissionWorkflow
from workflows.authoring import AuthoringWorkflow
from workflows.dataset_production import DatasetProduction
from workflows.derivation import TaskDerivationWorkflow
from workflows.evaluation_campaign import CampaignRecovery, CampaignTrial, EvaluationCampaign
from workflows.evaluation import EvaluationWorkflow
from workflows.model_authoring import CheckDeliveryWorkflow, ModelAuthoringWorkflow
from workflows.packaging import PackagingWorkflow
from workflows.review import ReviewWorkflow
from workflows.task_production import TaskProduction
from workflows.trial_solves import TrialSolvesWorkflow
from workflows.vl_grading import VLGradingWorkflow

WORKFLOWS = [TaskProduction, AdmissionWorkflow, AuthoringWorkflow, TrialSolvesWorkflow,
             ReviewWorkflow, EvaluationWorkflow, PackagingWorkflow, VLGradingWorkflow,
             ModelAuthoringWorkflow, CheckDeliveryWorkflow, TaskDerivationWorkflow,
             DatasetProduction, EvaluationCampaign, CampaignTrial, CampaignRecovery]


def cpu_activities(settings: Settings) -> list:
    store = settings.content_store()
    admission = AdmissionActivities(store, PROJECT_ROOT)
    authoring = AuthoringActivities(store)
    review = ReviewActivities(store, settings.tasks)
    evaluation = EvaluationActivities(store)
    packaging = PackagingActivities(store, settings.objects())
    datasets = DatasetActivities(settings.objects(), PROJECT_ROOT)
    scoring = ScoringActivities(store)
    drafts = ModelDraftActivities(store)
    derivation = DerivationActivities(store, PROJECT_ROOT, settings.var / "derived")
    campaigns = CampaignActivities(store, settings.objects(), PROJECT_ROOT)
    return [admission.admit_seed, admission.pipeline_defaults, authoring.assemble_task_package,
            scoring.score_trial, review.judge_calibration, review.freeze_task,
            evaluation.write_pilot_record, evaluation.write_evaluation_plan,
            evaluation.write_evaluation_report, packaging.scan_export, packaging.publish_task,
            drafts.admit_draft, drafts.calibration_feedback, drafts.write_authoring_record,
            derivation.read_source_task, derivation.measure_novelty,
            derivation.write_derived_seed, derivation.write_derivation_record,
            datasets.open_dataset_revision, datasets.record_seed_outcome,
            campaigns.plan_campaign, campaigns.record_campaign_trial,
            campaigns.write_campaign_report, campaigns.plan_recovery, campaigns.finish_recovery]


def gpu_activities(settings: Settings, backend: TrialBackend | None = None) -> list:
    store = settings.content_store()
    backend = backend or backend_from_env()
    # The one switch (ARKEVO_TRIAL_BACKEND) also decides where Blender opens outside code here:
    # build scripts and deliveries run in the sandbox unless trials run unisolated.
    scripts = LOCAL if isinstance(backend, LocalBackend) else None
    authoring = AuthoringActivities(store, scripts)
    trials = TrialActivities(store, backend)
    evidence = EvidenceActivities(store, settings.var / "cache" / "evidence", scripts)
    # The author model's loop runs here: its authoring sandbox needs Blender, its endpoint
    # (ARKEVO_AUTHOR_*) lives in this worker's environment.
    author = AuthorActivities(store, local=scripts == LOCAL)
    return [authoring.build_workspace, trials.run_trial, trials.check_solver_endpoints,
            evidence.render_evidence,
            author.author_round, author.check_model_endpoints]


def llm_activities(settings: Settings) -> list:
    """Model calls; the token bucket (ARKEVO_LLM_RPM, default 4/min) is this process's."""
    store = settings.content_store()
    derivation = DerivationActivities(store, PROJECT_ROOT)
    return [JudgeActivities(store).judge_vl, ReviewerActivities(store).final_review,
            derivation.extract_pattern, derivation.generate_candidates,
            AuthorActivities(store).check_model_endpoints]


def build_worker(pool: str, client: Client, settings: Settings, *, concurrency: int,
                 executor: ThreadPoolExecutor) -> Worker:
    """`concurrency` is activity slots: on gpu, concurrent Blender processes (sandboxes)."""
    if pool == "control":
        return Worker(client, task_queue=queues.CONTROL, workflows=WORKFLOWS,
                      max_concurrent_activities=concurrency)
    if pool == "cpu":
        return Worker(client, task_queue=queues.CPU, activities=cpu_activities(settings),
                      activity_executor=executor, max_concurrent_activities=concurrency)
    if pool == "gpu":
        return Worker(client, task_queue=queues.GPU, activities=gpu_activities(settings),
                      max_concurrent_activities=concurrency)
    if pool == "llm":
        return Worker(client, task_queue=queues.LLM, activities=llm_activities(settings),
                      max_concurrent_activities=concurrency)
    raise ValueError(f"unknown pool {pool!r}; expected one of {', '.join(queues.POOLS)}")
