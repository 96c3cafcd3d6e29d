"""Dataset production: many seeds into one dataset revision (docs/datasets.md)."""

from dataclasses import dataclass

from contracts.payloads.common import ProductionOptions


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


@dataclass
class DatasetSeed:
    seed: str  # path as TaskProduction takes it
    seed_id: str


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
    state: str  # published | failed
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
