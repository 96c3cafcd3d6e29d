"""Evaluation campaigns over frozen tasks (docs/campaigns.md)."""

from dataclasses import dataclass, field

from contracts.errors import MODEL_ENDPOINT_UNREACHABLE, SANDBOX_SMOKE_FAILED
from contracts.payloads.common import DatasetRef
from contracts.payloads.review import FrozenTask
from contracts.payloads.trials import SolverSpec, TrialOutcome


@dataclass
class BreakerOptions:
    """The campaign's circuit breaker (docs/campaigns.md "Circuit breaker"): when `failures` of
    the last `window` finished trials are infrastructure exceptions, no new trial starts until
    the `resume` signal. failures 0: off."""

    failures: int = 5
    window: int = 10


@dataclass
class CampaignInput:
    """Input of `EvaluationCampaign`: a frozen dataset revision's split, or frozen publications
    (directories or URIs), evaluated by the configs of `mode` in the solver registry."""

    campaign_id: str
    mode: str = "pilot"
    dataset: DatasetRef | None = None
    split: str | None = None
    publications: list[str] = field(default_factory=list)
    configs: list[str] | None = None  # a subset of the mode's configs; None: all of them
    registry: str | None = None  # registry file; None: contracts/solver_configs.json
    seed: int = 2026  # bootstrap resampling seed, stored in the plan
    bootstrap_samples: int = 2000
    caps: dict[str, int] = field(default_factory=lambda: {"gpu": 4, "llm": 2})
    trial_attempts: int = 4  # tries of one trial's run against infrastructure faults
    # An operational option, not part of the plan: a resume may change it.
    breaker: BreakerOptions = field(default_factory=BreakerOptions)


# The workflow's view of a registered campaign plan: tasks and configs with what the trials need,
# trials by index. The persisted document is `contracts.models.CampaignPlan` (campaign-plan).
@dataclass
class PlannedTask:
    publication_id: str
    publication_sha256: str
    split: str | None
    frozen: FrozenTask


@dataclass
class PlannedTrial:
    trial_id: str  # <campaign>.<task>.<config>.<attempt>: the id recovery names
    task: int  # index into PlannedCampaign.tasks
    config: int  # index into PlannedCampaign.configs
    attempt: int
    pools: list[str]  # caps it counts against (gpu; llm too for model agents)


@dataclass
class PlannedCampaign:
    campaign_id: str
    location: str  # where the campaign's files are (a directory or s3:// URI)
    plan_sha256: str
    tasks: list[PlannedTask]
    configs: list[SolverSpec]
    trials: list[PlannedTrial]
    caps: dict[str, int]
    trial_attempts: int
    recorded: list[str] = field(default_factory=list)  # trial ids with a record already (a rerun)
    retracted: list[str] = field(default_factory=list)  # tasks left out: "task (reason, by who)"


@dataclass
class SolverEndpointCheckInput:
    configs: list[SolverSpec]  # the campaign's configs; model agents are checked


@dataclass
class PreflightInput:
    """Before a campaign's first trial (gpu worker): one real request to each model endpoint
    the configs need, then one sandbox smoke trial on `task` (None: no smoke trial)."""

    campaign_id: str
    configs: list[SolverSpec]
    task: PlannedTask | None
    recovery_round: int | None = None  # a recovery round's preflight (recoveries/<nnn>/preflight.json)


@dataclass
class EndpointCheck:
    """One model endpoint as a gpu worker reached it (never a key)."""

    config_ids: list[str]  # the configs that share this endpoint, model and request extras
    endpoint: str  # scheme://host[:port]/path, no userinfo, query or fragment
    model: str | None
    reasoning_effort: str | None
    ok: bool
    latency_sec: float | None = None
    error_type: str | None = None  # ModelEndpointUnreachable | ModelNotConfigured
    error: str | None = None  # redacted


@dataclass
class SmokeTrial:
    """A nop-agent trial in the real sandbox, not recorded: the sandbox starts, Blender opens
    the task's workspace, the verifier reports."""

    task_id: str
    ok: bool
    seconds: float | None = None
    blender_version: str | None = None
    criteria: int | None = None  # criteria in the verifier's report
    error_type: str | None = None  # SandboxSmokeFailed
    error: str | None = None


@dataclass
class PreflightReport:
    campaign_id: str
    checked_at: str
    worker: str  # the gpu worker's identity
    endpoints: list[EndpointCheck]
    smoke: SmokeTrial | None  # None: not run (an endpoint failed first, or nothing to run)
    recovery_round: int | None = None  # the recovery round it gated; None: a start or resume

    @property
    def failure(self) -> tuple[str, str] | None:
        """(error type, message) of the first failed check; None: all passed."""
        for e in self.endpoints:
            if not e.ok:
                return (e.error_type or MODEL_ENDPOINT_UNREACHABLE,
                        f"preflight: model endpoint of config(s) {', '.join(e.config_ids)} "
                        f"({e.endpoint}, model {e.model}): {e.error}")
        if self.smoke is not None and not self.smoke.ok:
            return (self.smoke.error_type or SANDBOX_SMOKE_FAILED,
                    f"preflight: sandbox smoke trial on task {self.smoke.task_id}: {self.smoke.error}")
        return None


@dataclass
class PlanCampaignInput:
    campaign: CampaignInput
    created_at: str


@dataclass
class CampaignTrialInput:
    campaign_id: str
    trial_id: str
    task: PlannedTask
    solver: SolverSpec
    attempt: int
    trial_attempts: int
    recovery: int | None = None  # recovery round that reruns this trial
    replaces_sha256: str | None = None  # the record a recovery replaces
    prestart_next: bool = False  # a later trial of this task waits for this one's slot

    @property
    def run_id(self) -> str:
        """Unique per execution (workflow ids, evidence folders); trial_id stays the record's."""
        return self.trial_id if self.recovery is None else f"{self.trial_id}.recover-{self.recovery}"


@dataclass
class RecordTrialInput:
    trial: CampaignTrialInput
    outcome: TrialOutcome


@dataclass
class CampaignRecord:
    """What the campaign keeps of a finished trial (the full record is in the store)."""

    trial_id: str
    config_id: str
    task_id: str
    attempt: int
    reward: float | None
    success: bool | None
    failure_kind: str | None
    record_sha256: str
    failure: str | None = None  # "<type>: <message>" (redacted, shortened): the breaker's reason


@dataclass
class CampaignReportInput:
    campaign_id: str
    recovery: int | None = None  # the latest recovery round, shown beside the original run


@dataclass
class CampaignResult:
    campaign_id: str
    location: str
    report_json: str  # location of report.json
    report_md: str
    trials: int
    exceptions: list[str]  # trial ids of infra exceptions still standing
    recovery: int | None = None
    failed: dict[str, str] = field(default_factory=dict)  # trial id -> why it has no record
    pauses: list[dict] = field(default_factory=list)  # circuit breaker pauses: reason, trials, when


@dataclass
class RecoveryInput:
    """Input of `CampaignRecovery`: rerun exactly these trial ids (infra exceptions only)."""

    campaign_id: str
    trial_ids: list[str]
    reason: str
    requested_by: str
    trial_attempts: int | None = None  # None: the plan's


@dataclass
class PlanRecoveryInput:
    recovery: RecoveryInput
    created_at: str


@dataclass
class RecoveryPlan:
    campaign_id: str
    round: int
    trials: list[CampaignTrialInput]
    backup: str  # location of the replaced records
    caps: dict[str, int] = field(default_factory=dict)


@dataclass
class FinishRecoveryInput:
    campaign_id: str
    round: int
    trial_ids: list[str]
    requested_by: str
    reason: str
    created_at: str
