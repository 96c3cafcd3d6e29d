"""The verifier drift check (docs/verifier-drift.md): the `VerifierDrift` workflow's payloads,
and the drift report it writes beside the revision (`VerifierDriftReport`, the one description
of `datasets/<ns>/<rev>/drift/<code id>-<sha12>.json`)."""

from dataclasses import dataclass, field
from typing import Literal

from contracts.models import Contract, Sha256, Timestamp
from contracts.payloads.common import BlobRef, DatasetRef


@dataclass
class VerifierDriftInput:
    """Input of `VerifierDrift`: every publication of the revision re-scored with the workers'
    verifier code, or with a candidate's (`probe_code`: a folder on the workers, absolute or
    relative to their project root, holding replacements for some probe files)."""

    dataset: DatasetRef
    tolerance: float = 0.01  # a reward moving by more than this is drift
    probe_code: str | None = None
    # False: the stored deliveries only -- the reference is not attacked again (mutation testing)
    # and the gaming samples are not probed again; each task's mutation part says so
    attacks: bool = True


@dataclass
class DriftCampaignRecord:
    """A campaign trial's record as it stands (`campaigns/<id>/records/<trial_id>.json`, or the
    recovery round's that replaced it)."""

    campaign_id: str
    trial_id: str
    round: int | None = None


@dataclass
class DriftTaskInput:
    """One publication to re-score: every calibration sample, stage-06 trial and campaign trial."""

    task_id: str
    folder: str  # object key of the publication folder
    publication_sha256: str
    tolerance: float
    probe_code: str | None
    campaign_records: list[DriftCampaignRecord] = field(default_factory=list)
    records_sha256: str | None = None  # of its records.json, as the revision's chain link pins it
    attacks: bool = True  # VerifierDriftInput.attacks


@dataclass
class DriftPlan:
    namespace: str
    revision: str
    location: str  # the revision's folder (a directory or s3:// URI)
    tasks: list[DriftTaskInput]
    code_id: str  # vc-<12 hex> of the code re-scored with (verifiers.version.verifier_code_id)
    code_files: dict[str, str]  # file -> sha256 of that code
    replaced: list[str]  # the files a candidate replaced (empty: the workers' own code)


@dataclass
class DriftTaskResult:
    """What one task's re-scoring found; its report entry (`DriftTask`) is in the store."""

    task_id: str
    entry: BlobRef
    drift: bool
    verdict_flips: int
    rescored: int
    not_rescored: int


@dataclass
class DriftReportInput:
    request: VerifierDriftInput
    plan: DriftPlan
    results: list[DriftTaskResult]
    created_at: str


@dataclass
class VerifierDriftResult:
    report: str  # where the report lies (a path or s3:// URI)
    report_key: str  # its object key
    zero_drift: bool
    tasks_checked: int
    verdict_flips: int
    tasks_with_drift: list[str]


# --- the report document ------------------------------------------------------------------------


class DriftRecord(Contract):
    """One stored calibration sample, stage-06 trial or campaign trial, graded again."""

    source: Literal["calibration", "evaluation", "campaign"]
    id: str
    """the calibration sample's name or the trial id"""
    campaign_id: str | None
    rescored: bool
    not_rescored: str | None
    """why it was not graded again (an infrastructure exception, nothing delivered, a delivery or
    record this store does not hold, VL answers that are not comparable); never drift"""
    stored_reward: float | None
    new_reward: float | None
    stored_success: bool | None
    new_success: bool | None
    verdict_flip: bool
    """success under the stored grade and under the new one differ"""
    reward_changed: bool
    """the reward moved by more than the tolerance, or became or stopped being null"""
    reward_delta: float | None
    criteria_added: list[str]
    criteria_removed: list[str]
    criteria_changed: list[str]
    """criteria whose own pass/fail changed (shown; drift only through reward and verdict)"""
    drift: bool


class DriftMutation(Contract):
    """The mutation score (killed / applicable gaming operators) under the new grader against
    the stored one, and the author's gaming samples refused before and now."""

    rescored: bool
    not_rescored: str | None
    stored_score: float | None
    new_score: float | None
    stored_killed: int | None
    new_killed: int | None
    stored_applicable: int | None
    new_applicable: int | None
    newly_surviving: list[str]
    newly_killed: list[str]
    gaming_total: int
    gaming_stored_refused: int | None
    gaming_new_refused: int | None
    gaming_newly_accepted: list[str]
    gaming_newly_refused: list[str]
    changed: bool


class DriftCalibration(Contract):
    """Would the task's calibration still pass review (the frozen margin and expectations) with
    its samples graded again."""

    passed_before: bool | None
    passed_now: bool | None
    misses_now: list[str]
    changed: bool


class DriftTask(Contract):
    task_id: str
    task_version: str
    publication_id: str
    publication_sha256: Sha256
    scoring_profile: dict[str, str]
    frozen_verifier_version: str
    current_verifier_version: str
    """the task's verifier version with the code re-scored with (vv2-…)"""
    version_changed: bool
    frozen_version_reproduced: bool
    """the frozen verifier version recomputed from the probe code packaged with the task and the
    workers' evidence renderer: false means the renderer (or Blender) changed since freezing"""
    vl_answers: Literal["not-weighted", "reused", "not-comparable"]
    """a VL-weighted record is re-scored with its stored VL answer only when the renderer that
    made the renders it judged is the one in force (reproduced)"""
    records: list[DriftRecord]
    calibration: DriftCalibration
    mutation: DriftMutation
    drift: bool


class DriftCode(Contract):
    id: str
    """vc-<12 hex>: the digest of the verifier code every task was re-scored with"""
    files: dict[str, Sha256]
    candidate: str | None
    """the candidate's folder, when its files replaced some of the workers'"""
    replaced: list[str]


class DriftSummary(Contract):
    tasks_checked: int
    samples_rescored: int
    trials_rescored: int
    not_rescored: int
    verdict_flips: int
    reward_changes: int
    criteria_changes: int
    mutation_changes: int
    calibration_changes: int
    tasks_with_drift: list[str]
    zero_drift: bool


class VerifierDriftReport(Contract):
    """What the verifier in force would change of a revision's stored verdicts. Written once,
    beside the revision; the frozen records are never touched."""

    report_version: Literal["1"]
    namespace: str
    revision: str
    created_at: Timestamp
    tolerance: float
    attacks: bool = True  # False: mutation testing and the gaming samples were not run again
    verifier_code: DriftCode
    frozen_verifier_versions: list[str]
    current_verifier_versions: list[str]
    summary: DriftSummary
    tasks: list[DriftTask]
