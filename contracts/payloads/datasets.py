"""Dataset production: many seeds into one dataset revision (docs/datasets.md)."""

from dataclasses import dataclass, field

from contracts.payloads.common import BlobRef, ProductionOptions


@dataclass
class DatasetCarry:
    """State a DatasetProduction run hands on when it continues as new."""

    runs: int
    failed: dict[str, str]  # seed_id -> reason
    published: dict[str, str]  # seed_id -> publication id, published by earlier runs


@dataclass
class DatasetProductionInput:
    """Input of `DatasetProduction`: the spec itself (`spec`, a dataset-spec document) or a
    path to its file relative to the worker's project root (`spec_path`). `carry` is what a
    run hands to the run it continues as (continue-as-new); never set it yourself."""

    spec: dict | None = None
    spec_path: str | None = None
    carry: DatasetCarry | None = None
    continue_after: int = 200  # children completed in one run before it continues as new
    stop_when_ready: bool | None = None  # overrides the spec's: false resumes deferred seeds


@dataclass
class DatasetSeed:
    seed: str  # path as TaskProduction takes it; "<root path>#NNN" names a family's instance NNN
    seed_id: str
    family: str = ""  # its source family: production starts families round-robin
    seed_tree: BlobRef | None = None  # a family instance's files in the store (admission reads them)


@dataclass
class DatasetPlan:
    """The revision as opened: its validated spec, its seeds, what is already published."""

    namespace: str
    revision: str
    spec_sha256: str
    seeds: list[DatasetSeed]
    published: dict[str, str]  # seed_id -> publication id already in the revision's chain
    concurrency: int
    options: ProductionOptions | None
    location: str  # where the revision lies (directory or s3:// URI)
    stop_when_ready: bool = False  # the spec's: start no seed once freeze-check passes


@dataclass
class FreezeReadiness:
    """Whether `freeze-check` passes on the revision as it stands, and what it lacks if not."""

    ready: bool
    candidates: int
    gaps: list[str]  # "<rule>: <message>", the first READINESS_GAPS of them
    gap_count: int = 0  # all of them: a revision's every task can be a gap, and each check is history


READINESS_GAPS = 20  # gaps a readiness answer carries (the rest counted by rule in a last line)


@dataclass
class OpenRevisionInput:
    spec: dict | None
    spec_path: str | None
    opened_at: str


@dataclass
class SeedOutcome:
    namespace: str
    revision: str
    seed: str
    seed_id: str
    state: str  # published | failed | deferred (not started: the revision was ready to freeze)
    workflow_id: str
    at: str
    reason: str = ""
    publication_id: str | None = None
    task_id: str | None = None
    started_at: str = ""  # when its TaskProduction started ("": not recorded)
    stage: str = ""  # the stage a failed seed stopped at, e.g. "03-authoring"
    failure_type: str = ""  # that stage's named error, e.g. "InvalidSeed", "CalibrationFailed"


@dataclass
class DatasetProductionResult:
    namespace: str
    revision: str
    location: str
    published: dict[str, str]  # seed_id -> publication id (this revision, all runs)
    skipped: list[str]  # already published when this production started
    failed: dict[str, str]  # seed_id -> reason
    runs: int  # this run and the ones it continued from
    deferred: list[str] = field(default_factory=list)  # not started: freeze-check passed first
