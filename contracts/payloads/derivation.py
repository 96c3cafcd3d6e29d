"""Task derivation: new seeds from published tasks (docs/authoring.md)."""

from dataclasses import dataclass, field

from contracts.payloads.common import BlobRef, ProductionOptions
from contracts.payloads.model_authoring import ModelUsage


@dataclass
class DerivationInput:
    sources: list[str]  # Harbor task directories (absolute, or relative to the project root)
    tasks_per_seed: int = 2
    concurrency: int = 2
    similarity_threshold: float | None = None  # default: contracts/pipeline.json
    options: ProductionOptions | None = None  # for every derived TaskProduction
    out_dir: str | None = None  # where derived seed folders go (default <var>/derived/<workflow id>)
    # The split of a frozen revision the derived tasks join (docs/authoring.md): needed to
    # derive from a task of a held-out split (any split but train), which is refused without
    # it; the derived tasks' lineage is then pinned to that split.
    joins_split: str | None = None


@dataclass
class SourcePlacement:
    """Where a frozen dataset revision put a source task."""

    namespace: str
    revision: str
    split: str
    publication_sha256: str


@dataclass
class SourceTask:
    source: str  # the folder as given
    source_id: str  # task id (tests/task.json) or the folder name
    summary: BlobRef  # JSON: instruction, public texts, task.json, rubric.json, lineage
    lineage_root: str = ""  # the source's lineage (contracts/lineage.py); "": not read
    lineage_family: str = ""
    placements: list[SourcePlacement] = field(default_factory=list)  # in frozen revisions
    lineage_split: str = ""  # the split the source's own lineage is pinned to ("": none)


@dataclass
class TaskPattern:
    source_id: str
    pattern: BlobRef  # JSON: the transferable pattern
    usage: ModelUsage


@dataclass
class CandidateRequest:
    source: SourceTask
    pattern: TaskPattern
    k: int
    joins_split: str | None = None  # the split the derived seeds' lineage is pinned to


@dataclass
class SeedCandidate:
    seed_id: str
    title: str
    files: BlobRef  # tree: seed.json, materials/...
    plan: dict  # the candidate's requirements and checks (what similarity compares)


@dataclass
class CandidateSet:
    candidates: list[SeedCandidate]
    rejected: list[dict]  # {"seed_id", "reason"}: generated but malformed
    usage: ModelUsage


@dataclass
class NoveltyInput:
    source: SourceTask
    candidates: list[SeedCandidate]
    threshold: float


@dataclass
class NoveltyVerdict:
    seed_id: str
    accepted: bool
    similarity: dict  # {"source": {...}, "<other seed>": {...}}: text, structure, combined
    max_similarity: float
    reason: str = ""


@dataclass
class WriteSeedInput:
    candidate: SeedCandidate
    out_dir: str | None  # None: <worker var>/derived/<run>
    run: str = ""  # the derivation's workflow id


@dataclass
class DerivedTask:
    source_id: str
    seed_id: str
    status: str  # published | near_duplicate | malformed | failed
    reason: str = ""
    max_similarity: float | None = None
    seed_path: str | None = None
    publication: str | None = None


@dataclass
class DerivationRecordInput:
    sources: list[SourceTask]
    tasks: list[DerivedTask]
    novelty: list[NoveltyVerdict]
    usage: list[ModelUsage]
    threshold: float


@dataclass
class DerivationResult:
    tasks: list[DerivedTask]
    record: BlobRef
