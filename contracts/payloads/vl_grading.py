"""The vision-language judgement of a delivery's evidence."""

from dataclasses import dataclass, field

from contracts.payloads.common import BlobRef


@dataclass
class RenderEvidenceInput:
    delivery: BlobRef | None  # None: nothing was delivered
    judge_config: BlobRef  # the task's judge.json (its "evidence" section is the view spec)
    graded: list[str] = field(default_factory=list)  # the rubric's names: report those it cannot see


@dataclass
class RenderedEvidence:
    evidence: BlobRef | None
    error: str | None  # why there is nothing to judge: no delivery, an unreadable .blend, or one
    # that crashed or hung the renderer (the solver's doing, never retried)
    cache_hit: bool
    unseen: dict[str, str] = field(default_factory=dict)  # graded part -> why the judge cannot see it


@dataclass
class VLJudgeRequest:
    task_id: str
    judge_config: BlobRef  # the task's judge.json
    evidence: BlobRef | None  # store tree of the delivery's evidence files; None if not rendered
    judge: str = "model"  # model | image-metric
    reference_evidence: BlobRef | None = None  # store tree; needed by image-metric
    evidence_error: str | None = None  # the delivery could not be rendered (missing / unreadable)


@dataclass
class VLJudgeOutcome:
    result: BlobRef  # VLResult as JSON in the store
    judge_id: str
    vl_score: float | None
    missing_reason: str | None
    gated: bool
    evidence: BlobRef | None = None  # the renders it judged


@dataclass
class VLGradingInput:
    task_id: str
    judge_config: BlobRef
    delivery: BlobRef | None
    judge: str = "model"  # model | image-metric
    reference_evidence: BlobRef | None = None  # image-metric compares against these renders
