"""What each pool runs. Activities are methods of classes that receive their dependencies."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from temporalio.client import Client
from temporalio.worker import Worker

from activities.admission import AdmissionActivities
from activities.authoring import AuthoringActivities
from activities.evaluation import EvaluationActivities
from activities.evidence import EvidenceActivities
from activities.packaging import PackagingActivities
from activities.review import ReviewActivities
from activities.scoring import ScoringActivities
from activities.store import FilesystemStore
from activities.trial_backends import LocalBackend, TrialBackend, backend_from_env
from activities.trials import TrialActivities
from activities.vl_judge import JudgeActivities
from contracts import queues
from sandbox.script_run import LOCAL
from workers.settings import PROJECT_ROOT, Settings
from workflows.admission import AdmissionWorkflow
from workflows.authoring import AuthoringWorkflow
from workflows.evaluation import EvaluationWorkflow
from workflows.packaging import PackagingWorkflow
from workflows.review import ReviewWorkflow
from workflows.task_production import TaskProduction
from workflows.trial_solves import TrialSolvesWorkflow
from workflows.vl_grading import VLGradingWorkflow

WORKFLOWS = [TaskProduction, AdmissionWorkflow, AuthoringWorkflow, TrialSolvesWorkflow,
             ReviewWorkflow, EvaluationWorkflow, PackagingWorkflow, VLGradingWorkflow]


def cpu_activities(settings: Settings) -> list:
    store = FilesystemStore(settings.store_root)
    admission = AdmissionActivities(store, PROJECT_ROOT)
    authoring = AuthoringActivities(store)
    review = ReviewActivities(store, settings.tasks)
    evaluation = EvaluationActivities(store)
    packaging = PackagingActivities(store, settings.publications, settings.handoff)
    scoring = ScoringActivities(store)
    return [admission.admit_seed, authoring.assemble_task_package, scoring.score_trial,
            review.judge_calibration, review.freeze_task, evaluation.write_pilot_record,
            evaluation.write_evaluation_plan, evaluation.write_evaluation_report,
            packaging.publish_task]


def gpu_activities(settings: Settings, backend: TrialBackend | None = None) -> list:
    store = FilesystemStore(settings.store_root)
    backend = backend or backend_from_env()
    # The one switch (ARKEVO_TRIAL_BACKEND) also decides where Blender opens outside code here:
    # build scripts and deliveries run in the sandbox unless trials run unisolated.
    scripts = LOCAL if isinstance(backend, LocalBackend) else None
    authoring = AuthoringActivities(store, scripts)
    trials = TrialActivities(store, backend)
    evidence = EvidenceActivities(store, settings.var / "cache" / "evidence", scripts)
    return [authoring.build_workspace, trials.run_trial, evidence.render_evidence]


def llm_activities(settings: Settings) -> list:
    """Model calls; the token bucket (ARKEVO_LLM_RPM, default 4/min) is this process's."""
    return [JudgeActivities(FilesystemStore(settings.store_root)).judge_vl]


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
