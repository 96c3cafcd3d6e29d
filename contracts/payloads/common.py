"""What every stage shares: store references, the dataset a publication joins, a production's
input and options."""

from dataclasses import dataclass


@dataclass(frozen=True)
class BlobRef:
    """A blob in the content-addressed store. `key` locates it, `sha256` proves its content."""

    key: str
    sha256: str
    size: int

    def as_dict(self) -> dict:
        return {"key": self.key, "sha256": self.sha256, "size": self.size}


def ref_dict(ref: BlobRef | None) -> dict | None:
    return None if ref is None else ref.as_dict()


@dataclass
class ProductionOptions:
    """Optional overrides of `contracts/pipeline.json` defaults for one production run."""

    pilot_policies: list[str] | None = None
    evaluation_policies: list[str] | None = None
    k: int | None = None
    vl_judge: str | None = None  # image-metric (offline) | model (needs llm workers' endpoint)
    max_author_rounds: int | None = None  # model authoring: author + check rounds at most
    review: str | None = None  # automatic (default) | human: stage 05 waits for review_decision
    review_timeout_sec: int | None = None  # human review: how long stage 05 waits (default a day)


@dataclass
class DatasetRef:
    """A dataset revision (docs/datasets.md): where a publication joins a hash chain."""

    namespace: str
    revision: str


@dataclass
class TaskProductionInput:
    """Input of `TaskProduction`: `seed` is absolute or relative to the worker's project root;
    `dataset` publishes into that dataset revision's chain (set by DatasetProduction).
    `seed_tree`, when set, is the seed folder's content tree: admission reads that from the
    store and `seed` only names it (a derived seed, written on another worker's disk)."""

    seed: str
    options: ProductionOptions | None = None
    dataset: DatasetRef | None = None
    seed_tree: BlobRef | None = None


STAGE_PROGRESS_SIGNAL = "stage_progress"  # TaskProduction's signal that takes a StageCounts


@dataclass
class StageCounts:
    """Counts inside one stage of a TaskProduction, signalled by the stage's workflow to its
    parent (`stage_progress`): {what: [done, total]}, e.g. {"trials oracle": [2, 3]}. Signals
    may arrive out of order: the parent keeps the largest `done` of each."""

    stage: str
    counts: dict[str, list[int]]


@dataclass
class ProgressTarget:
    """Where an activity inside a stage sends its own counts (a `StageCounts` signal): the
    TaskProduction running the stage, and the stage's name. Carried in the activity's input by
    the stage workflow, which alone knows whether it has such a parent."""

    workflow_id: str
    stage: str
