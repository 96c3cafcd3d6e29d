"""Stage 02: admitting a seed (the checked draft and the run's settings travel on from here)."""

from dataclasses import dataclass, field

from contracts.payloads.common import BlobRef, ProductionOptions


@dataclass
class PipelineDefaults:
    """Run defaults from `contracts/pipeline.json`, read once at admission."""

    pilot_policies: list[str]
    evaluation_policies: list[str]
    k: int
    calibration_reference_min: float
    calibration_margin: float
    vl_judge: str
    max_author_rounds: int = 3
    derivation_similarity_threshold: float = 0.6


@dataclass
class AdmissionInput:
    seed: str
    admitted_at: str
    options: ProductionOptions | None = None  # checked at admission, with the seed
    seed_tree: BlobRef | None = None  # the seed folder in the store (TaskProductionInput)


@dataclass
class CalibrationSample:
    """A scripted delivery whose expected grade is known: reference, input, defect or variant."""

    name: str  # e.g. "reference", "input", "defect:float-box"
    kind: str  # reference | input | defect | variant
    policy: str  # scripted policy that produces the delivery


@dataclass
class DraftPlan:
    """What admission learned from the checked draft: everything stage 03 needs to assemble the
    package, so the draft is never parsed again."""

    task_id: str
    instruction: str  # path inside draft/
    public_attachments: list[str]  # paths inside draft/
    workflow_primary: str
    profession_primary: str
    scoring_profile: dict  # {"profile_id", "profile_version"}
    verification: dict  # weights, pass_threshold, core_failure_cap
    has_task_probes: bool
    calibration_samples: list[CalibrationSample]


@dataclass
class RunPlan:
    """The run's settings after defaults and options were merged and checked."""

    pilot_policies: list[str]
    evaluation_policies: list[str]
    k: int
    reference_min: float
    margin: float
    vl_judge: str
    pipeline_ref: dict  # {pipeline_id, pipeline_version, pipeline_digest} of the workers' code
    max_author_rounds: int = 3  # model authoring: author + check rounds at most
    review: str = "automatic"  # automatic | human (stage 05 waits for a reviewer's decision)
    review_timeout_sec: int = 24 * 3600  # human review: how long stage 05 waits


@dataclass
class PrivacyPending:
    """A file a privacy checkpoint could not read (docs/privacy.md): a .blend whose embedded
    texts and custom properties were not yet read through Blender in the sandbox, or a binary
    of an unknown type. Its coverage is pending until the .blend is read, or a reviewer settles
    it (`review_privacy_coverage`)."""

    file: str  # relative posix path in the scanned folder
    sha256: str
    reason: str


@dataclass
class AdmissionResult:
    seed_id: str
    task_id: str
    seed_tree: BlobRef  # manifest of every admitted seed file (materials + draft)
    admission_record: BlobRef
    material_count: int
    reference_project: str  # path of the reference project inside the seed tree
    start_mode: str
    run: RunPlan
    draft: DraftPlan | None  # None: the draft is written by the author model in stage 03
    authoring: str = "human"  # human (the seed's draft/) | model (docs/authoring.md)
    # what the admission privacy scan could not read (a .blend material, an unknown binary);
    # also in the admission record's "privacy" section
    privacy_pending: list[PrivacyPending] = field(default_factory=list)
