"""Typed payloads that cross Temporal boundaries: every workflow and activity input and output.

One home for all of them, so a stage's result is the next stage's input without re-deriving
anything: what a later stage needs travels here, validated once at the edge (admission).
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


# --- 02 admission -----------------------------------------------------------------------------


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


# --- 03 authoring -----------------------------------------------------------------------------


@dataclass
class TaskIdentity:
    """Who a task package is: written into task.toml's metadata and every record."""

    task_id: str
    task_version: str  # "draft" until frozen
    verifier_version: str
    pipeline_digest: str
    workflow_primary: str
    profession_primary: str


@dataclass
class GradingSpec:
    """How a delivery of this task is graded: the scoring profile with its params, the VL judge
    and the reference evidence it compares against. Carried to every trial."""

    task_id: str
    profile: dict  # {"profile_id", "profile_version"}
    params: dict  # profile params (kuka-80-20: core caps chosen by calibration)
    verification: dict  # weights, pass_threshold, core_failure_cap
    uses_vl: bool
    judge: str | None  # image-metric | model; None when the profile does not weight VL
    judge_config: BlobRef | None  # the task's judge.json
    verifier_basis: str  # digest of probe code, rubric, grading fields, renderer, judge
    verifier_version: str  # vv2-…: verifier_basis + params
    reference_evidence: BlobRef | None = None  # renders of the reference deliverable

    @property
    def pass_threshold(self) -> float:
        return float(self.verification["pass_threshold"])


@dataclass
class BuildWorkspaceInput:
    seed_tree: BlobRef
    reference_project: str
    start_mode: str


@dataclass
class WorkspaceBuild:
    start_blend: BlobRef
    reference_blend: BlobRef


@dataclass
class AssembleInput:
    seed_tree: BlobRef
    workspace: WorkspaceBuild
    draft: DraftPlan
    vl_judge: str


@dataclass
class AssembledPackage:
    task_package: BlobRef  # tree: instruction, workspace, tests, solution, private
    identity: TaskIdentity
    grading: GradingSpec


@dataclass
class AuthoringInput:
    admission: AdmissionResult


# --- trials (03 baseline + reference, 04, 05 calibration, 06) ---------------------------------


@dataclass
class SolverSpec:
    """One solver configuration of `contracts/solver_configs.json` as a trial carries it
    (docs/campaigns.md). `agent`: oracle | nop | arkevo-llm | harbor:<name> | <module>:<Class>."""

    config_id: str
    agent: str
    kind: str  # scripted | model
    label: str  # "scripted policy — not a model result" for every scripted agent
    model: str | None = None
    reasoning_effort: str | None = None
    timeout_sec: float | None = None
    agent_kwargs: dict = field(default_factory=dict)
    validated: bool = False


@dataclass
class TrialRequest:
    task_package: BlobRef
    identity: TaskIdentity
    policy: str  # oracle | nop | llm | script:<path inside the package> | a solver config id
    trial_id: str
    stage: str  # authoring | calibration | pilot | evaluation | campaign
    attempt: int = 1
    solver: SolverSpec | None = None  # a registry config: wins over `policy`
    keep_evidence: bool = False  # store Harbor's trial directory (logs, trajectory, verifier)


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


FAILURE_KINDS = ("infra", "solver", "author")


@dataclass
class TrialOutcome:
    trial_id: str
    policy: str
    stage: str
    attempt: int
    reward: float | None  # the scoring profile's total; None until scored, or when null
    success: bool | None
    verifier_version: str | None
    delivery: BlobRef | None = None
    report: BlobRef | None = None  # the rule probe's report (from the verifier sandbox)
    started_at: str = ""
    finished_at: str = ""
    failed_criteria: list[str] = field(default_factory=list)
    exception: dict[str, str] | None = None  # infra failure after retries: never a score
    timed_out: bool = False  # the agent ran out of time: still a graded attempt
    failure: TrialFailure | None = None  # set whenever the trial did not end cleanly
    vl: BlobRef | None = None  # the VL judgement (when the profile weights VL)
    judge: dict | None = None  # {id, kind, label} of who answered the VL questions
    score: BlobRef | None = None  # the score record under the task's profile
    null_reason: str | None = None  # why reward is None although the trial ran
    cost: TrialCost | None = None  # what the attempt spent (None: it never ran)
    evidence: BlobRef | None = None  # tree: Harbor's trial directory (keep_evidence)
    trajectory: BlobRef | None = None  # the agent's redacted ATIF trajectory, when it wrote one
    harbor_trial: str | None = None  # Harbor's trial directory name inside `evidence`
    renders: BlobRef | None = None  # tree: the delivery's evidence renders the VL judge saw


@dataclass
class TrialCost:
    """What one attempt spent (docs/campaigns.md). None: not measured by this backend or agent."""

    wall_sec: float
    agent_sec: float | None = None
    model_calls: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    agent_steps: int | None = None
    sandbox_cpu_sec: float | None = None  # solver + verifier sandboxes (cgroup cpuacct)
    gpu_sec: float | None = None  # never measured on these machines


def failure_counts(outcomes: list[TrialOutcome]) -> dict[str, int]:
    """How many trials ended in each failure kind (every kind listed, zeros included)."""
    counts = dict.fromkeys(FAILURE_KINDS, 0)
    for o in outcomes:
        if o.failure is not None:
            counts[o.failure.kind] += 1
    return counts


@dataclass
class ScoreTrialInput:
    grading: GradingSpec
    outcome: TrialOutcome
    vl: VLJudgeOutcome | None = None


@dataclass
class AuthoringResult:
    task_id: str
    task_package: BlobRef
    identity: TaskIdentity
    grading: GradingSpec  # reference_evidence set when the profile weights VL
    input_trial: TrialOutcome
    reference_trial: TrialOutcome
    calibration_samples: list[CalibrationSample]
    # Samples already graded on this very package (model authoring's accepted check round):
    # review judges them again instead of running them again.
    graded_samples: list[GradedSample] = field(default_factory=list)
    authoring_record: BlobRef | None = None  # model authoring: rounds, models, tokens, time


@dataclass
class GradedSample:
    name: str  # CalibrationSample.name
    outcome: TrialOutcome


@dataclass
class TrialSolvesInput:
    authoring: AuthoringResult
    policies: list[str]


@dataclass
class PilotRecordInput:
    task_id: str
    outcomes: list[TrialOutcome]
    findings: list[str]


@dataclass
class TrialSolvesResult:
    trials: list[TrialOutcome]
    findings: list[str]
    record: BlobRef


# --- VL grading -------------------------------------------------------------------------------


@dataclass
class RenderEvidenceInput:
    delivery: BlobRef | None  # None: nothing was delivered
    judge_config: BlobRef  # the task's judge.json (its "evidence" section is the view spec)


@dataclass
class RenderedEvidence:
    evidence: BlobRef | None
    error: str | None  # why there is nothing to judge: no delivery, an unreadable .blend, or one
    # that crashed or hung the renderer (the solver's doing, never retried)
    cache_hit: bool


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


# --- 05 review --------------------------------------------------------------------------------


@dataclass
class ReviewInput:
    authoring: AuthoringResult
    pilot: TrialSolvesResult
    reference_min: float
    margin: float
    pipeline_ref: dict


@dataclass
class MutationInput:
    """Mutation testing of the package's grader on the reference delivery (stage 05)."""

    task_id: str
    task_package: BlobRef
    delivery: BlobRef  # the reference trial's delivery
    grading: GradingSpec


@dataclass
class MutationRows:
    """The gaming operators' rows (verifiers/mutations.py) and the author's gaming samples' probe
    reports, stored as JSON ({rows, gaming}): judged in review."""

    rows: BlobRef
    operators: int
    applicable: int
    gaming: int = 0  # gaming samples probed


@dataclass
class CalibrationInput:
    task_id: str
    grading: GradingSpec
    reference_min: float
    margin: float
    samples: list[CalibrationSample]
    outcomes: list[TrialOutcome]
    pilot_findings: list[str]
    mutations: MutationRows | None = None
    package: BlobRef | None = None  # the task package (its tests/task.json lists allowed operators)


@dataclass
class CalibrationVerdict:
    report: BlobRef
    passed: bool
    misses: list[str]
    grading: GradingSpec  # with the params calibration chose (and their verifier version)
    input_reward: float | None  # the untouched input, scored under those params
    # applicable gaming operators the grader did not kill, and gaming samples ("gaming:<name>")
    # it did not refuse (GraderGameable when not empty)
    survivors: list[str] = field(default_factory=list)


@dataclass
class FreezeInput:
    identity: TaskIdentity
    task_package: BlobRef
    calibration_report: BlobRef
    grading: GradingSpec
    input_reward: float | None
    pipeline_ref: dict
    frozen_at: str


@dataclass
class FrozenTask:
    """A frozen task version and everything evaluation and packaging need from it."""

    task_id: str
    task_version: str
    task_package: BlobRef  # frozen tree (task.json status "frozen", pipeline_ref set)
    frozen_record: BlobRef
    calibration_report: BlobRef  # the one the frozen record names, whichever run wrote it
    identity: TaskIdentity
    grading: GradingSpec
    input_reward: float | None
    pipeline_ref: dict

    @property
    def verifier_version(self) -> str:
        return self.grading.verifier_version


# --- 06 evaluation ----------------------------------------------------------------------------


@dataclass
class EvaluationInput:
    frozen: FrozenTask
    configs: list[str]
    k: int


@dataclass
class PlanInput:
    frozen: FrozenTask
    configs: list[str]
    k: int
    created_at: str


@dataclass
class ReportInput:
    frozen: FrozenTask
    plan: BlobRef
    k: int
    outcomes: list[TrialOutcome]


@dataclass
class ConfigMetrics:
    config: str
    k: int
    scored: int
    exceptions: int
    avg_at_k: float | None
    pass_at_k: float | None
    reward_delta: float | None
    failures: dict[str, int] = field(default_factory=dict)  # {infra, solver, author}: counts


@dataclass
class EvaluationResult:
    plan: BlobRef
    trials_jsonl: BlobRef
    report: BlobRef
    metrics: list[ConfigMetrics]


# --- 07 packaging -----------------------------------------------------------------------------


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


# --- 03 model authoring (docs/authoring.md) ---------------------------------------------------


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


# --- task derivation (docs/authoring.md) ------------------------------------------------------


@dataclass
class DerivationInput:
    sources: list[str]  # Harbor task directories (absolute, or relative to the project root)
    tasks_per_seed: int = 2
    concurrency: int = 2
    similarity_threshold: float | None = None  # default: contracts/pipeline.json
    options: ProductionOptions | None = None  # for every derived TaskProduction
    out_dir: str | None = None  # where derived seed folders go (default <var>/derived/<workflow id>)


@dataclass
class SourceTask:
    source: str  # the folder as given
    source_id: str  # task id (tests/task.json) or the folder name
    summary: BlobRef  # JSON: instruction, public texts, task.json, rubric.json


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


# --- dataset production (docs/datasets.md) ----------------------------------------------------


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
class DatasetCarry:
    """State a DatasetProduction run hands on when it continues as new."""

    runs: int
    failed: dict[str, str]  # seed_id -> reason
    published: dict[str, str]  # seed_id -> publication id, published by earlier runs


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


@dataclass
class DatasetProductionResult:
    namespace: str
    revision: str
    location: str
    published: dict[str, str]  # seed_id -> publication id (this revision, all runs)
    skipped: list[str]  # already published when this production started
    failed: dict[str, str]  # seed_id -> reason
    runs: int  # this run and the ones it continued from


# --- evaluation campaigns (docs/campaigns.md) ---------------------------------------------------


@dataclass
class CampaignInput:
    """Input of `EvaluationCampaign`: a frozen dataset revision's split, or frozen publications
    (directories or URIs), evaluated by the configs of `mode` in the solver registry."""

    campaign_id: str
    mode: str = "pilot"
    dataset: DatasetRef | None = None
    split: str | None = None
    publications: list[str] = field(default_factory=list)
    configs: list[str] | None = None  # a subset of the mode's configs; None: all of them
    registry: str | None = None  # registry file; None: contracts/solver_configs.json
    seed: int = 2026  # bootstrap resampling seed, stored in the plan
    bootstrap_samples: int = 2000
    caps: dict[str, int] = field(default_factory=lambda: {"gpu": 4, "llm": 2})
    trial_attempts: int = 4  # tries of one trial's run against infrastructure faults


@dataclass
class CampaignTask:
    publication_id: str
    publication_sha256: str
    split: str | None
    frozen: FrozenTask


@dataclass
class CampaignTrialSpec:
    trial_id: str  # <campaign>.<task>.<config>.<attempt>: the id recovery names
    task: int  # index into CampaignPlan.tasks
    config: int  # index into CampaignPlan.configs
    attempt: int
    pools: list[str]  # caps it counts against (gpu; llm too for model agents)


@dataclass
class CampaignPlan:
    campaign_id: str
    location: str  # where the campaign's files are (a directory or s3:// URI)
    plan_sha256: str
    tasks: list[CampaignTask]
    configs: list[SolverSpec]
    trials: list[CampaignTrialSpec]
    caps: dict[str, int]
    trial_attempts: int
    recorded: list[str] = field(default_factory=list)  # trial ids with a record already (a rerun)


@dataclass
class SolverEndpointCheckInput:
    configs: list[SolverSpec]  # the campaign's configs; model agents are checked


@dataclass
class PlanCampaignInput:
    campaign: CampaignInput
    created_at: str


@dataclass
class CampaignTrialInput:
    campaign_id: str
    trial_id: str
    task: CampaignTask
    solver: SolverSpec
    attempt: int
    trial_attempts: int
    recovery: int | None = None  # recovery round that reruns this trial
    replaces_sha256: str | None = None  # the record a recovery replaces

    @property
    def run_id(self) -> str:
        """Unique per execution (workflow ids, evidence folders); trial_id stays the record's."""
        return self.trial_id if self.recovery is None else f"{self.trial_id}.recover-{self.recovery}"


@dataclass
class RecordTrialInput:
    trial: CampaignTrialInput
    outcome: TrialOutcome


@dataclass
class CampaignRecord:
    """What the campaign keeps of a finished trial (the full record is in the store)."""

    trial_id: str
    config_id: str
    task_id: str
    attempt: int
    reward: float | None
    success: bool | None
    failure_kind: str | None
    record_sha256: str


@dataclass
class CampaignReportInput:
    campaign_id: str
    recovery: int | None = None  # the latest recovery round, shown beside the original run


@dataclass
class CampaignResult:
    campaign_id: str
    location: str
    report_json: str  # location of report.json
    report_md: str
    trials: int
    exceptions: list[str]  # trial ids of infra exceptions still standing
    recovery: int | None = None
    failed: dict[str, str] = field(default_factory=dict)  # trial id -> why it has no record


@dataclass
class RecoveryInput:
    """Input of `CampaignRecovery`: rerun exactly these trial ids (infra exceptions only)."""

    campaign_id: str
    trial_ids: list[str]
    reason: str
    requested_by: str
    trial_attempts: int | None = None  # None: the plan's


@dataclass
class PlanRecoveryInput:
    recovery: RecoveryInput
    created_at: str


@dataclass
class RecoveryPlan:
    campaign_id: str
    round: int
    trials: list[CampaignTrialInput]
    backup: str  # location of the replaced records
    caps: dict[str, int] = field(default_factory=dict)


@dataclass
class FinishRecoveryInput:
    campaign_id: str
    round: int
    trial_ids: list[str]
    requested_by: str
    reason: str
    created_at: str
