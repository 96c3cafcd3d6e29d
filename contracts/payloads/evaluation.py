"""Stage 06: the formal evaluation's plan, records and figures."""

from dataclasses import dataclass, field

from contracts.payloads.common import BlobRef
from contracts.payloads.review import FrozenTask
from contracts.payloads.trials import TrialOutcome


@dataclass
class EvaluationInput:
    frozen: FrozenTask
    configs: list[str]
    k: int


@dataclass
class PlanInput:
    frozen: FrozenTask
    configs: list[str]
    k: int
    created_at: str


@dataclass
class ReportInput:
    frozen: FrozenTask
    plan: BlobRef
    k: int
    outcomes: list[TrialOutcome]


@dataclass
class ConfigMetrics:
    config: str
    k: int
    scored: int
    exceptions: int
    avg_at_k: float | None
    pass_at_k: float | None
    reward_delta: float | None
    failures: dict[str, int] = field(default_factory=dict)  # {infra, solver, author}: counts


@dataclass
class EvaluationResult:
    plan: BlobRef
    trials_jsonl: BlobRef
    report: BlobRef
    metrics: list[ConfigMetrics]
