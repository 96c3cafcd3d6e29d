"""Typed payloads that cross Temporal boundaries (workflow and activity inputs/outputs).

Payloads carry store references (key + sha256), never file contents: large data lives in the
content-addressed store.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class BlobRef:
    """A blob in the content-addressed store. `key` locates it, `sha256` proves its content."""

    key: str
    sha256: str
    size: int


@dataclass
class ProductionOptions:
    """Optional overrides of `contracts/pipeline.json` defaults for one production run."""

    pilot_policies: list[str] | None = None
    evaluation_policies: list[str] | None = None
    k: int | None = None


@dataclass
class TaskProductionInput:
    """Input of `TaskProduction`: `seed` is absolute or relative to the worker's project root."""

    seed: str
    options: ProductionOptions | None = None


# --- 02 admission -----------------------------------------------------------------------------


@dataclass
class PipelineDefaults:
    """Run defaults from `contracts/pipeline.json`, read once at admission."""

    pilot_policies: list[str]
    evaluation_policies: list[str]
    k: int
    calibration_reference_min: float


@dataclass
class AdmissionInput:
    seed: str
    admitted_at: str


@dataclass
class AdmissionResult:
    seed_id: str
    task_id: str
    seed_tree: BlobRef  # manifest of every admitted seed file (materials + draft)
    admission_record: BlobRef
    material_count: int
    reference_project: str  # path of the reference project inside the seed tree
    start_mode: str
    pipeline: PipelineDefaults


# --- 03 authoring -----------------------------------------------------------------------------


@dataclass
class CalibrationSample:
    """A scripted delivery whose expected grade is known: reference, input, defect or variant."""

    name: str  # e.g. "reference", "input", "defect:float-box"
    kind: str  # reference | input | defect | variant
    policy: str  # scripted policy that produces the delivery


@dataclass
class AuthoringResult:
    task_id: str
    task_package: BlobRef  # tree: instruction, public, workspace, tests, solution, private
    pass_threshold: float
    scoring_profile: dict
    input_trial: TrialOutcome
    calibration_samples: list[CalibrationSample]


# --- trials (04, 05 calibration, 06) ----------------------------------------------------------


@dataclass
class TrialRequest:
    task_package: BlobRef
    policy: str  # oracle | nop | script:<path inside private/>
    trial_id: str
    stage: str  # authoring | calibration | pilot | evaluation
    attempt: int = 1


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


@dataclass
class TrialOutcome:
    trial_id: str
    policy: str
    stage: str
    attempt: int
    reward: float | None
    success: bool | None
    verifier_version: str | None
    delivery: BlobRef | None = None
    report: BlobRef | None = None
    started_at: str = ""
    finished_at: str = ""
    failed_criteria: list[str] = field(default_factory=list)
    exception: dict[str, str] | None = None  # infra failure after retries: never a score
    timed_out: bool = False  # the agent ran out of time: still a graded attempt
    failure: TrialFailure | None = None  # set whenever the trial did not end cleanly


@dataclass
class TrialSolvesResult:
    trials: list[TrialOutcome]
    findings: list[str]
    record: BlobRef


# --- 05 review --------------------------------------------------------------------------------


@dataclass
class FrozenTask:
    task_id: str
    task_version: str
    task_package: BlobRef  # frozen tree (task.json status "frozen", pipeline_ref set)
    frozen_record: BlobRef
    calibration_report: BlobRef
    verifier_version: str
    input_reward: float | None
    pipeline_digest: str


# --- 06 evaluation ----------------------------------------------------------------------------


@dataclass
class ConfigMetrics:
    config: str
    k: int
    scored: int
    exceptions: int
    avg_at_k: float | None
    pass_at_k: float | None
    reward_delta: float | None


@dataclass
class EvaluationResult:
    plan: BlobRef
    trials_jsonl: BlobRef
    report: BlobRef
    metrics: list[ConfigMetrics]


# --- 07 packaging -----------------------------------------------------------------------------


@dataclass
class PublicationResult:
    publication_id: str
    path: str
    publication_json: BlobRef
    file_count: int
    handoff_event: str


@dataclass
class ProductionResult:
    seed_id: str
    task_id: str
    task_version: str
    publication: PublicationResult
    metrics: list[ConfigMetrics]
    input_reward: float | None
