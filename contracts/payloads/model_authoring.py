"""Stage 03 by the author model: rounds, drafts, checks and the reviewer's verdict
(docs/authoring.md)."""

from dataclasses import dataclass, field

from contracts.payloads.admission import DraftPlan, RunPlan
from contracts.payloads.authoring import WorkspaceBuild
from contracts.payloads.common import BlobRef
from contracts.payloads.trials import AuthoringResult


@dataclass
class ModelUsage:
    """What one model role spent: carried into the authoring record."""

    role: str  # author | reviewer | deriver
    model: str
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0


@dataclass
class ModelAuthoringInput:
    seed_id: str
    seed_tree: BlobRef  # seed.json + materials (no draft)
    reference_project: str
    start_mode: str
    run: RunPlan


@dataclass
class EndpointCheckInput:
    roles: list[str]  # registry roles the run needs (contracts/model_roles.json)


@dataclass
class AuthorRoundInput:
    seed_id: str
    seed_tree: BlobRef
    workspace: WorkspaceBuild  # the reference scene the author inspects in its sandbox
    round: int
    previous_draft: BlobRef | None  # tree of draft files (paths inside draft/), None in round 1
    feedback: list[dict]  # findings of the previous round (drafting.feedback.Finding dicts)


@dataclass
class AuthorRoundResult:
    outcome: str  # submitted | needs_input | no_submission (step budget spent)
    draft: BlobRef | None  # tree of the draft files written (paths inside draft/)
    transcript: BlobRef  # redacted
    usage: ModelUsage
    summary: str = ""
    missing: list[str] = field(default_factory=list)  # needs_input: what the materials lack


@dataclass
class CheckDraftInput:
    seed_id: str
    seed_tree: BlobRef
    draft: BlobRef
    reference_project: str
    start_mode: str
    run: RunPlan
    round: int


@dataclass
class DraftAdmission:
    ok: bool
    findings: list[dict]
    seed_tree: BlobRef | None = None  # seed files + draft/ merged: the tree stages 03-07 use
    draft: DraftPlan | None = None


@dataclass
class DeliveryCheck:
    """One round's check_delivery: admission checks, then the calibration judgement."""

    round: int
    passed: bool
    findings: list[dict]  # what goes back to the author when it did not pass
    seed_tree: BlobRef | None = None
    draft: DraftPlan | None = None
    prepared: AuthoringResult | None = None  # package, grading and every graded sample
    calibration_report: BlobRef | None = None
    margin: float | None = None


@dataclass
class CalibrationFeedback:
    findings: list[dict]  # one per sample that missed, then the margin
    margin: float | None


@dataclass
class FinalReviewInput:
    seed_id: str
    seed_tree: BlobRef  # merged: the reviewer reads the draft and the materials
    calibration_report: BlobRef
    round: int


@dataclass
class FinalReviewVerdict:
    verdict: str  # accept | revise | reject
    reasons: list[str]
    checks: dict  # the reviewer's answer per check (coverage, leaks, client_request, margins)
    facts: dict  # what the worker measured and showed the reviewer
    transcript: BlobRef
    usage: ModelUsage


@dataclass
class AuthoringRecordInput:
    seed_id: str
    outcome: str  # authored | needs_input | rejected
    reasons: list[str]
    rounds: list[dict]
    usage: list[ModelUsage]
    started_at: str
    finished_at: str
    draft: BlobRef | None = None  # the accepted draft tree


@dataclass
class ModelAuthoringResult:
    outcome: str  # authored | needs_input | rejected
    reasons: list[str]  # rejected: why; needs_input: what the materials lack
    record: BlobRef  # authoring record: rounds, verdicts, model ids, tokens, wall time
    check: DeliveryCheck | None = None  # the accepted round (authored only)
