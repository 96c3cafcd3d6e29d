"""What each pool runs. Activities are methods of classes that receive their dependencies.

Every pool's Worker also gets `pool_options(pool)` (docs/operations.md, "Worker versioning and
shutdown"): a graceful shutdown timeout, and, when versioning is on (ARKEVO_DEPLOYMENT_NAME or
ARKEVO_WORKER_VERSIONING=1), the Worker Deployment Version `<deployment>.<build id>` with the
build id computed from the code (workers/promote.py `build_id`), the same in all four pools of
one checkout or image.
"""

from __future__ import annotations

import logging
import os
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Literal

from temporalio.client import Client
from temporalio.worker import Worker, WorkerDeploymentConfig

from activities.admission import AdmissionActivities
from activities.author_model import AuthorModelActivities
from activities.authoring import AuthoringActivities
from activities.campaigns import CampaignActivities
from activities.datasets import DatasetActivities
from activities.derivation import DerivationActivities
from activities.draft_review import DraftReviewActivities
from activities.evaluation import EvaluationActivities
from activities.evidence import EvidenceActivities
from activities.model_drafts import ModelDraftActivities
from activities.packaging import PackagingActivities
from activities.preflight import PreflightActivities
from activities.mutation_testing import MutationActivities
from activities.review import ReviewActivities
from activities.scoring import ScoringActivities
from activities.trial_backends import (MAX_HEARTBEAT_THROTTLE_SEC, LocalBackend, TrialBackend,
                                       backend_from_env)
from activities.trials import TrialActivities
from sandbox.isolation.settings import SandboxSettings
from activities.verifier_drift import DriftActivities
from activities.vl_judge import JudgeActivities
from observability.activity_log import ActivityLog
from modelapi.rate_budget import TemporalBudget
from contracts import queues
from sandbox.script_run import LOCAL
from workers import promote
from workflows import versioning
from workers.settings import PROJECT_ROOT, Settings
from workflows.admission import AdmissionWorkflow
from workflows.authoring import AuthoringWorkflow
from workflows.dataset_production import DatasetProduction
from workflows.derivation import TaskDerivationWorkflow
from workflows.evaluation_campaign import CampaignRecovery, CampaignTrial, EvaluationCampaign
from workflows.evaluation import EvaluationWorkflow
from workflows.model_authoring import CheckDeliveryWorkflow, ModelAuthoringWorkflow
from workflows.model_rate_budget import ModelRateBudget
from workflows.packaging import PackagingWorkflow
from workflows.review import ReviewWorkflow
from workflows.task_production import TaskProduction
from workflows.trial_solves import TrialSolvesWorkflow
from workflows.verifier_drift import VerifierDrift
from workflows.vl_grading import VLGradingWorkflow

WORKFLOWS = [TaskProduction, AdmissionWorkflow, AuthoringWorkflow, TrialSolvesWorkflow,
             ReviewWorkflow, EvaluationWorkflow, PackagingWorkflow, VLGradingWorkflow,
             ModelAuthoringWorkflow, CheckDeliveryWorkflow, TaskDerivationWorkflow,
             DatasetProduction, EvaluationCampaign, CampaignTrial, CampaignRecovery,
             ModelRateBudget, VerifierDrift]

# Seconds a stopping worker (SIGTERM) lets its running activities finish before cancelling
# them; a cancelled one fails with WorkerShutdown and Temporal retries it on another worker.
# gpu: a scripted trial (oracle, nop, calibration script) takes seconds to a minute, a model
# agent's trial usually minutes (its hard limit is the task's agent timeout, 1 h): 10 min lets
# nearly every running trial deliver; longer ones are run again elsewhere. cpu and llm: seconds
# to a few minutes (cpu's start-to-close timeout is 5 min, one model call's 300 s). control
# runs no activities. ARKEVO_GRACEFUL_SHUTDOWN_SEC overrides it for the pool a process runs.
GRACEFUL_SHUTDOWN_SEC = {"control": 0, "cpu": 300, "gpu": 600, "llm": 300}


def graceful_shutdown(pool: str, environ=None) -> timedelta:
    environ = os.environ if environ is None else environ
    raw = environ.get("ARKEVO_GRACEFUL_SHUTDOWN_SEC", "").strip()
    if not raw:
        return timedelta(seconds=GRACEFUL_SHUTDOWN_SEC[pool])
    try:
        seconds = float(raw)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:  # also refuses nan
        raise ValueError(f"ARKEVO_GRACEFUL_SHUTDOWN_SEC={raw!r}: expected seconds, 0 or more")
    return timedelta(seconds=seconds)


def pool_options(pool: str, environ=None) -> dict:
    """Worker options every pool shares: graceful shutdown, and versioning when it is on. No
    default versioning behaviour: every workflow type declares its own in `@workflow.defn`, and
    a versioned control worker refuses to start on one that does not."""
    if pool not in queues.POOLS:
        raise ValueError(f"unknown pool {pool!r}; expected one of {', '.join(queues.POOLS)}")
    version = promote.deployment_version(environ)
    if (version is not None) != versioning.VERSIONED:
        raise RuntimeError(
            "worker versioning (ARKEVO_DEPLOYMENT_NAME / ARKEVO_WORKER_VERSIONING) must be set "
            "before the process starts: the workflow types took their versioning behaviour "
            f"when first imported (versioned then: {versioning.VERSIONED}, now: {version is not None})")
    return dict(graceful_shutdown_timeout=graceful_shutdown(pool, environ),
                deployment_config=None if version is None else WorkerDeploymentConfig(
                    version=version, use_worker_versioning=True))


def cpu_activities(settings: Settings) -> list:
    store = settings.content_store()
    admission = AdmissionActivities(store, PROJECT_ROOT)
    authoring = AuthoringActivities(store)
    review = ReviewActivities(store, settings.objects())
    evaluation = EvaluationActivities(store)
    packaging = PackagingActivities(store, settings.objects())
    datasets = DatasetActivities(settings.objects(), PROJECT_ROOT, store)
    scoring = ScoringActivities(store)
    drafts = ModelDraftActivities(store)
    derivation = DerivationActivities(store, PROJECT_ROOT, settings.var / "derived", objects=settings.objects())
    campaigns = CampaignActivities(store, settings.objects(), PROJECT_ROOT)
    drift = DriftActivities(store, settings.objects(), PROJECT_ROOT)
    return [admission.admit_seed, admission.pipeline_defaults, authoring.assemble_task_package,
            scoring.score_trial, review.judge_calibration, review.freeze_task, review.record_human_review,
            evaluation.write_pilot_record, evaluation.write_evaluation_plan,
            evaluation.write_evaluation_report, packaging.scan_export, packaging.publish_task,
            drafts.admit_draft, drafts.calibration_feedback, drafts.write_authoring_record,
            derivation.read_source_task, derivation.measure_novelty,
            derivation.write_derived_seed, derivation.write_derivation_record,
            datasets.open_dataset_revision, datasets.record_seed_outcome, datasets.record_seed_outcomes,
            datasets.check_freeze_ready,
            campaigns.plan_campaign, campaigns.record_campaign_trial,
            campaigns.write_campaign_report, campaigns.plan_recovery, campaigns.finish_recovery,
            campaigns.record_preflight, drift.plan_drift, drift.write_drift_report]


def prestart_capacity(slots: int, sandbox_slots: int | None = None) -> int:
    """Pre-started solver sandboxes a gpu worker keeps (sandbox/prestart.py): one per gpu slot,
    but each holds a sandbox slot, and a trial holds two for a while (its solver's and its
    verifier's): never so many that a trial would wait for a slot one of them holds."""
    total = SandboxSettings().slots if sandbox_slots is None else sandbox_slots
    return max(0, min(slots, total - 2 * slots))


def gpu_activities(settings: Settings, backend: TrialBackend | None = None, *, slots: int = 1) -> list:
    store = settings.content_store()
    backend = backend or backend_from_env(prestart=prestart_capacity(slots))
    # The one switch (ARKEVO_TRIAL_BACKEND) also decides where Blender opens outside code here:
    # build scripts and deliveries run in the sandbox unless trials run unisolated.
    scripts: Literal["local"] | None = LOCAL if isinstance(backend, LocalBackend) else None
    authoring = AuthoringActivities(store, scripts)
    evidence = EvidenceActivities(store, settings.var / "cache" / "evidence", scripts)
    trials = TrialActivities(store, backend, evidence=evidence.renderer)  # verifiers fill its cache
    # The author model's loop runs here: its authoring sandbox needs Blender, its endpoint
    # (ARKEVO_AUTHOR_*) lives in this worker's environment.
    author = AuthorModelActivities(store, local=scripts == LOCAL)
    mutations = MutationActivities(store, scripts)
    drift = DriftActivities(store, settings.objects(), PROJECT_ROOT, scripts)  # re-scoring runs Blender
    preflight = PreflightActivities(trials)  # a campaign's endpoint pings and smoke trial
    return [authoring.build_workspace, trials.run_trial, trials.check_solver_endpoints,
            preflight.preflight_campaign,
            evidence.render_evidence, mutations.mutation_test,
            author.author_round, author.check_model_endpoints, drift.drift_task]


def llm_activities(settings: Settings, client: Client) -> list:
    """Model calls; every request draws on one budget (ARKEVO_LLM_RPM, default 4/min) shared by
    all llm worker processes through the ModelRateBudget workflow (modelapi/rate_budget.py)."""
    store = settings.content_store()
    budget = TemporalBudget(client)
    derivation = DerivationActivities(store, PROJECT_ROOT, budget=budget)
    return [JudgeActivities(store, budget).judge_vl, DraftReviewActivities(store, budget).final_review,
            derivation.extract_pattern, derivation.generate_candidates,
            AuthorModelActivities(store).check_model_endpoints]


def build_worker(pool: str, client: Client, settings: Settings, *, concurrency: int,
                 executor: ThreadPoolExecutor) -> Worker:
    """`concurrency` is activity slots: on gpu, concurrent Blender processes (sandboxes)."""
    options = pool_options(pool)  # raises on an unknown pool
    config = options["deployment_config"]
    logging.getLogger(__name__).info(
        "pool %s: %s, graceful shutdown %ss", pool,
        f"worker deployment version {config.version.to_canonical_string()} (promote it: "
        "python -m workers.promote)" if config else "unversioned",
        options["graceful_shutdown_timeout"].total_seconds())
    if pool == "control":
        return Worker(client, task_queue=queues.CONTROL, workflows=WORKFLOWS,
                      max_concurrent_activities=concurrency, **options)
    logged = [ActivityLog()]  # each activity's start and end at INFO, with seed and stage
    if pool == "cpu":
        return Worker(client, task_queue=queues.CPU, activities=cpu_activities(settings),
                      activity_executor=executor, max_concurrent_activities=concurrency,
                      interceptors=logged, **options)
    if pool == "gpu":
        # Heartbeats reach the server within 2 s (the SDK's default throttle is 0.8 x the 20 s
        # timeout): a lost worker's or a frozen host's trial is retried ~15 s sooner.
        return Worker(client, task_queue=queues.GPU, activities=gpu_activities(settings, slots=concurrency),
                      max_heartbeat_throttle_interval=timedelta(seconds=MAX_HEARTBEAT_THROTTLE_SEC),
                      max_concurrent_activities=concurrency, interceptors=logged, **options)
    return Worker(client, task_queue=queues.LLM, activities=llm_activities(settings, client),
                  max_concurrent_activities=concurrency, interceptors=logged, **options)
