"""Trials: the input baseline and reference at stage 03, the pilot solves of 04, the calibration
samples of 05 and the evaluation of 06."""

from dataclasses import dataclass, field

from contracts.payloads.admission import CalibrationSample
from contracts.payloads.authoring import GradingSpec, TaskIdentity
from contracts.payloads.common import BlobRef
from contracts.payloads.vl_grading import VLJudgeOutcome


@dataclass
class SolverSpec:
    """One solver configuration of `contracts/solver_configs.json` as a trial carries it
    (docs/campaigns.md). `agent`: oracle | nop | arkevo-llm | harbor:<name> | <module>:<Class>."""

    config_id: str
    agent: str
    kind: str  # scripted | model
    label: str  # "scripted policy — not a model result" for every scripted agent
    model: str | None = None
    reasoning_effort: str | None = None
    timeout_sec: float | None = None
    agent_kwargs: dict = field(default_factory=dict)
    validated: bool = False


@dataclass
class TrialRequest:
    task_package: BlobRef
    identity: TaskIdentity
    policy: str  # oracle | nop | llm | script:<path inside the package> | a solver config id
    trial_id: str
    stage: str  # authoring | calibration | pilot | evaluation | campaign
    attempt: int = 1
    solver: SolverSpec | None = None  # a registry config: wins over `policy`
    keep_evidence: bool = False  # store Harbor's trial directory (logs, trajectory, verifier)
    # The task's judge config when its profile weights VL: the verifier then also renders the
    # delivery's evidence into the worker's cache (verifiers/probe_and_render.py).
    judge_config: BlobRef | None = None
    # The caller starts another trial of this task package once this one ends: the worker may
    # have its sandbox and Blender host started by then (sandbox/prestart.py).
    prestart_next: bool = False


@dataclass
class TrialFailure:
    """Why a trial did not end cleanly, and who caused it (docs/failures.md):

    * ``infra``: the sandbox or worker failed before the agent's first action, the worker was
      lost, the store was unreachable, the verifier could not start -- retried, reported apart,
      never in a mean, never a 0;
    * ``solver``: anything after the agent's first action that the solver's own actions cause
      (Blender host died or hung, delivery missing / not a .blend / truncated / crashes or hangs
      the probe) -- a graded attempt, counted in avg@k and pass@k;
    * ``author``: a draft's own script fails deterministically (solution, defect, variant, build
      script) -- a non-retryable error naming the file and the exception.
    """

    kind: str  # infra | solver | author
    type: str  # short machine name, e.g. BlenderHostDied, DeliveryMissing, ScriptFailed
    message: str
    evidence: dict = field(default_factory=dict)  # e.g. {"file": ..., "exit_code": ..., "log_tail": ...}


FAILURE_KINDS = ("infra", "solver", "author")


@dataclass
class MeasuredCost:
    """What one attempt spent (docs/campaigns.md). None: not measured by this backend or agent.
    Dumped, it is a trial record's `cost` (`contracts.models.TrialCost`)."""

    wall_sec: float
    agent_sec: float | None = None
    model_calls: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    agent_steps: int | None = None
    sandbox_cpu_sec: float | None = None  # solver + verifier sandboxes (cgroup cpuacct)
    gpu_sec: float | None = None  # never measured on these machines


@dataclass
class TrialOutcome:
    trial_id: str
    policy: str
    stage: str
    attempt: int
    reward: float | None  # the scoring profile's total; None until scored, or when null
    success: bool | None
    verifier_version: str | None
    delivery: BlobRef | None = None
    report: BlobRef | None = None  # the rule probe's report (from the verifier sandbox)
    started_at: str = ""
    finished_at: str = ""
    failed_criteria: list[str] = field(default_factory=list)
    exception: dict[str, str] | None = None  # infra failure after retries: never a score
    timed_out: bool = False  # the agent ran out of time: still a graded attempt
    failure: TrialFailure | None = None  # set whenever the trial did not end cleanly
    vl: BlobRef | None = None  # the VL judgement (when the profile weights VL)
    judge: dict | None = None  # {id, kind, label} of who answered the VL questions
    score: BlobRef | None = None  # the score record under the task's profile
    null_reason: str | None = None  # why reward is None although the trial ran
    cost: MeasuredCost | None = None  # what the attempt spent (None: it never ran)
    evidence: BlobRef | None = None  # tree: Harbor's trial directory (keep_evidence)
    trajectory: BlobRef | None = None  # the agent's redacted ATIF trajectory, when it wrote one
    harbor_trial: str | None = None  # Harbor's trial directory name inside `evidence`
    renders: BlobRef | None = None  # tree: the delivery's evidence renders the VL judge saw
    blender_version: str | None = None  # the Blender the trial's worker ran (None: it never ran)


def failure_counts(outcomes: list[TrialOutcome]) -> dict[str, int]:
    """How many trials ended in each failure kind (every kind listed, zeros included)."""
    counts = dict.fromkeys(FAILURE_KINDS, 0)
    for o in outcomes:
        if o.failure is not None:
            counts[o.failure.kind] += 1
    return counts


@dataclass
class ScoreTrialInput:
    grading: GradingSpec
    outcome: TrialOutcome
    vl: VLJudgeOutcome | None = None


@dataclass
class GradedSample:
    name: str  # CalibrationSample.name
    outcome: TrialOutcome


@dataclass
class MutationRows:
    """The gaming operators' rows (verifiers/mutations.py) and the author's gaming samples' probe
    reports, stored as JSON ({rows, gaming}): judged in review."""

    rows: BlobRef
    operators: int
    applicable: int
    gaming: int = 0  # gaming samples probed


@dataclass
class AuthoringResult:
    task_id: str
    task_package: BlobRef
    identity: TaskIdentity
    grading: GradingSpec  # reference_evidence set when the profile weights VL
    input_trial: TrialOutcome
    reference_trial: TrialOutcome
    calibration_samples: list[CalibrationSample]
    # Samples already graded on this very package (model authoring's accepted check round):
    # review judges them again instead of running them again.
    graded_samples: list[GradedSample] = field(default_factory=list)
    # The gaming operators' rows of that round, on this very package and reference delivery:
    # review judges them again instead of running the operators again.
    mutation_rows: MutationRows | None = None
    authoring_record: BlobRef | None = None  # model authoring: rounds, models, tokens, time


@dataclass
class TrialSolvesInput:
    authoring: AuthoringResult
    policies: list[str]


@dataclass
class PilotRecordInput:
    task_id: str
    outcomes: list[TrialOutcome]
    findings: list[str]


@dataclass
class TrialSolvesResult:
    trials: list[TrialOutcome]
    findings: list[str]
    record: BlobRef
