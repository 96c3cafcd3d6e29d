"""Evaluation campaigns over frozen tasks (docs/campaigns.md)."""

from dataclasses import dataclass, field

from contracts.payloads.common import DatasetRef
from contracts.payloads.review import FrozenTask
from contracts.payloads.trials import SolverSpec, TrialOutcome


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
