"""Stage 05: calibration judged, then the task version frozen."""

from dataclasses import dataclass, field

from contracts.payloads.admission import CalibrationSample
from contracts.payloads.authoring import GradingSpec, TaskIdentity
from contracts.payloads.common import BlobRef, ProgressTarget
from contracts.payloads.trials import AuthoringResult, MutationRows, TrialOutcome, TrialSolvesResult


@dataclass
class ReviewInput:
    authoring: AuthoringResult
    pilot: TrialSolvesResult
    reference_min: float
    margin: float
    pipeline_ref: dict
    review: str = "automatic"  # human: wait for `review_decision` after the automatic checks pass
    review_timeout_sec: int = 0  # human review: how long to wait


@dataclass
class ReviewDecision:
    """`review_decision` signal of the Review workflow (stage 05 with `review: human`):
    `arkevo review accept|reject`, or `temporal workflow signal --name review_decision`."""

    decision: str  # accept | reject
    by: str
    reason: str = ""
    at: str = ""  # set by the workflow when it takes the decision


@dataclass
class HumanReviewRequest:
    """What stage 05 records while it waits (`reviews/pending/<task_id>.json`), and later the
    decision or the timeout on the same record."""

    task_id: str
    workflow_id: str  # the Review workflow to signal
    task_production_id: str
    calibration_report: BlobRef  # the evidence: the calibration report and the task package
    task_package: BlobRef
    requested_at: str
    timeout_sec: int
    state: str = "waiting"  # waiting | accepted | rejected | timed_out
    decision: ReviewDecision | None = None


@dataclass
class MutationInput:
    """Mutation testing of the package's grader on the reference delivery (stage 05)."""

    task_id: str
    task_package: BlobRef
    delivery: BlobRef  # the reference trial's delivery
    grading: GradingSpec
    progress: ProgressTarget | None = None  # "operators tried n/m" goes there as they advance


@dataclass
class CalibrationInput:
    task_id: str
    grading: GradingSpec
    reference_min: float
    margin: float
    samples: list[CalibrationSample]
    outcomes: list[TrialOutcome]
    pilot_findings: list[str]
    mutations: MutationRows | None = None
    package: BlobRef | None = None  # the task package (its tests/task.json lists allowed operators)


@dataclass
class CalibrationVerdict:
    report: BlobRef
    passed: bool
    misses: list[str]
    grading: GradingSpec  # with the params calibration chose (and their verifier version)
    input_reward: float | None  # the untouched input, scored under those params
    # applicable gaming operators the grader did not kill, and gaming samples ("gaming:<name>")
    # it did not refuse (GraderGameable when not empty)
    survivors: list[str] = field(default_factory=list)


@dataclass
class FreezeInput:
    identity: TaskIdentity
    task_package: BlobRef
    calibration_report: BlobRef
    grading: GradingSpec
    input_reward: float | None
    pipeline_ref: dict
    frozen_at: str
    human_review: ReviewDecision | None = None  # the reviewer's accept (review: human), recorded


@dataclass
class FrozenTask:
    """A frozen task version and everything evaluation and packaging need from it."""

    task_id: str
    task_version: str
    task_package: BlobRef  # frozen tree (task.json status "frozen", pipeline_ref set)
    frozen_record: BlobRef
    calibration_report: BlobRef  # the one the frozen record names, whichever run wrote it
    identity: TaskIdentity
    grading: GradingSpec
    input_reward: float | None
    pipeline_ref: dict

    @property
    def verifier_version(self) -> str:
        return self.grading.verifier_version
