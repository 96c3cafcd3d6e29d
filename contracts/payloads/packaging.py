"""Stage 07: the export scan and the publication."""

from dataclasses import dataclass, field

from contracts.payloads.admission import PrivacyPending
from contracts.payloads.common import BlobRef, DatasetRef
from contracts.payloads.evaluation import ConfigMetrics, EvaluationResult
from contracts.payloads.review import FrozenTask


@dataclass
class PrivacyReview:
    """`review_privacy_coverage` signal of the Packaging workflow (docs/privacy.md): a person
    settles the files no scanner could read. `approved` false rejects the publication."""

    approved: bool
    reviewer: str
    note: str = ""
    files: list[PrivacyPending] = field(default_factory=list)  # what was reviewed (set by the workflow)
    reviewed_at: str = ""


@dataclass
class PublishInput:
    seed_id: str
    frozen: FrozenTask
    evaluation: EvaluationResult
    admission_record: BlobRef
    created_at: str
    authoring_record: BlobRef | None = None  # model authoring: shipped under authoring/
    dataset: DatasetRef | None = None  # publish into this dataset revision's hash chain
    privacy_pending: list[PrivacyPending] = field(default_factory=list)  # from admission
    privacy_review: PrivacyReview | None = None  # a reviewer's decision on coverage_pending files
    pilot_record: BlobRef | None = None  # stage 04's record: the pilot trials and what they cost


@dataclass
class ExportScan:
    """The export checkpoint over exactly what 07 will publish: the stored report, and what
    awaits a reviewer (admission's pending files still unread, and the export's own)."""

    report: BlobRef
    pending: list[PrivacyPending]


@dataclass
class PublicationResult:
    publication_id: str
    path: str  # a directory, or an s3:// URI when the store is S3
    publication_json: BlobRef
    file_count: int
    handoff_event: str
    dataset_sequence: int | None = None  # its link in the dataset revision's chain


@dataclass
class ProductionResult:
    seed_id: str
    task_id: str
    task_version: str
    publication: PublicationResult
    metrics: list[ConfigMetrics]
    input_reward: float | None
    failures: dict[str, int] = field(default_factory=dict)  # every trial of the run, by kind
