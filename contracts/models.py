"""Pydantic models that mirror the JSON Schemas in `contracts/schemas/`.

The schemas are the source of truth; these models exist so that code gets typed, immutable
documents instead of dicts. They must accept and reject exactly what the schemas do, which
`tests/unit/test_contract_agreement.py` checks on shared samples. That is why every model is
strict (JSON has no "0.5" for 0.5 and no `true` for 1), forbids unknown keys, matches strings
with Python's `re` like jsonschema does, and re-states the schemas' `if`/`then` rules as
validators. A few rules that JSON Schema cannot state (references between the parts of one
document, ids unique by one field) are checked by the models alone; the schemas' descriptions
name them, and the tests check them apart from the agreement samples.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    StringConstraints,
    field_validator,
    model_serializer,
    model_validator,
)

# Patterns, character for character as in the schemas' `$defs` (a unit test compares them).
SLUG = r"^[a-z0-9][a-z0-9-]{1,62}$"
NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"
VERSION = r"^[A-Za-z0-9][A-Za-z0-9.+-]{0,63}$"
SEMVER = r"^[0-9]+\.[0-9]+\.[0-9]+$"
SOFTWARE_VERSION = r"^[0-9]+\.[0-9]+(?:\.[0-9]+)?$"
TEXT = r"^\s*\S"
RELPATH = r"^(?!\.{1,2}(?:/|$))(?!.*/\.{1,2}(?:/|$))[^/\\\u0000]+(?:/[^/\\\u0000]+)*$"
SHA256 = r"^[0-9a-f]{64}$"
SEEDPATH = r"^/?(?!\.{1,2}(?:/|$))(?!.*/\.{1,2}(?:/|$))[^/\\\u0000]+(?:/[^/\\\u0000]+)*$"
TIMESTAMP = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?"
    r"(?:Z|[+-][0-9]{2}:[0-9]{2})$"
)
WORKFLOW_ID = r"^(?:MOD|ANI|TEX|MAT|SCN|PIP)-[0-9]{2}$"
PROFESSION_ID = r"^PRF-[A-Z0-9]+$"
CRITERION_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
REQUIREMENT_ID = r"^[A-Za-z][A-Za-z0-9_.-]{1,63}$"
METHOD = r"^[a-z][a-z0-9_]{0,63}$"
CAMPAIGN_ID = r"^[a-z0-9][a-z0-9._-]{0,79}$"
POOL = r"^[a-z]+$"

PATTERNS = frozenset(
    {
        SLUG, NAME, VERSION, SEMVER, SOFTWARE_VERSION, TEXT, RELPATH, SEEDPATH, SHA256, TIMESTAMP,
        WORKFLOW_ID, PROFESSION_ID, CRITERION_ID, REQUIREMENT_ID, METHOD, CAMPAIGN_ID, POOL,
    }
)


def _integral(value: Any) -> Any:
    """JSON Schema counts 1.0 as an integer, so the models accept it too (as 1)."""
    if type(value) is float and value.is_integer():
        return int(value)
    return value


def _absent(value: Any) -> bool:
    return value is None


def _not_null(cls, value: Any) -> Any:
    """An optional property the schema lets a document leave out but not set to null (pydantic
    defaults are not validated, so an explicit null still reaches this)."""
    if value is None:
        raise ValueError("may be left out, but not null")
    return value


def _leave_out_unset(
    model: BaseModel, handler: SerializerFunctionWrapHandler, names: frozenset[str]
) -> dict[str, Any]:
    """Dump `model`, leaving out those of `names` the document left out. For optional
    properties that may also be null: `exclude_if` cannot tell an absent one from a null one,
    and a dump must keep the null (documents are hashed)."""
    data = handler(model)
    for name in names - model.model_fields_set:
        data.pop(name, None)
    return data


def _unique(items: list[Any]) -> list[Any]:
    """Mirror `uniqueItems: true` for lists of strings."""
    if len(set(items)) != len(items):
        raise ValueError("has non-unique elements")
    return items


Slug = Annotated[str, StringConstraints(pattern=SLUG)]
Name = Annotated[str, StringConstraints(pattern=NAME)]
Version = Annotated[str, StringConstraints(pattern=VERSION)]
Text = Annotated[str, StringConstraints(pattern=TEXT)]
RelPath = Annotated[str, StringConstraints(pattern=RELPATH)]
SeedPath = Annotated[str, StringConstraints(pattern=SEEDPATH)]
Sha256 = Annotated[str, StringConstraints(pattern=SHA256)]
Timestamp = Annotated[str, StringConstraints(pattern=TIMESTAMP)]
WorkflowId = Annotated[str, StringConstraints(pattern=WORKFLOW_ID)]
ProfessionId = Annotated[str, StringConstraints(pattern=PROFESSION_ID)]
CriterionId = Annotated[str, StringConstraints(pattern=CRITERION_ID)]
Method = Annotated[str, StringConstraints(pattern=METHOD)]
CampaignId = Annotated[str, StringConstraints(pattern=CAMPAIGN_ID)]
Pool = Annotated[str, StringConstraints(pattern=POOL)]

# A JSON number keeps its Python type (1 stays 1, 0.5 stays 0.5) so that a model dumps back to
# the document it was read from: documents are hashed, and 1 and 1.0 hash differently.
UnitInterval = Annotated[int, Field(ge=0, le=1)] | Annotated[float, Field(ge=0, le=1)]
Zero = Annotated[int, Field(ge=0, le=0)] | Annotated[float, Field(ge=0, le=0)]
Count = Annotated[int, BeforeValidator(_integral), Field(ge=0)]
Positive = Annotated[int, BeforeValidator(_integral), Field(ge=1)]
Seconds = Annotated[int, Field(ge=0)] | Annotated[float, Field(ge=0)]

StartMode = Literal["from_scratch", "continue", "refine", "repair"]
GroupId = Literal["MOD", "ANI", "TEX", "MAT", "SCN", "PIP"]
ConfigKind = Literal["scripted", "model"]
ReasoningEffort = Literal["minimal", "low", "medium", "high"]
FailureKind = Literal["infra", "solver", "author"]


class Contract(BaseModel):
    """Base of every document model: strict, closed and immutable, like the documents."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        frozen=True,
        regex_engine="python-re",
        allow_inf_nan=False,
    )


# --- shared parts -----------------------------------------------------------------------------


class Software(Contract):
    name: Literal["blender"]
    version: Annotated[str, StringConstraints(pattern=SOFTWARE_VERSION)]


class SanitizationPolicy(Contract):
    policy_id: Name
    policy_version: Version


class ScoringProfileRef(Contract):
    """Scores are only comparable under the same profile id and version."""

    profile_id: Name
    profile_version: Version


class PipelineRef(Contract):
    """The pipeline that froze a task: its id, version and `pipeline_digest` over the contracts
    and verifiers, so a frozen task can be traced to exactly the code that checked it."""

    pipeline_id: Name
    pipeline_version: Version
    pipeline_digest: Sha256


class StoreRef(Contract):
    """A blob in the content-addressed store: `key` locates it, `sha256` proves its content."""

    key: Text
    sha256: Sha256
    size: Count


# --- seed manifest ----------------------------------------------------------------------------


class Provenance(Contract):
    source: Text
    license: Text
    collected_by: Text


class Material(Contract):
    path: RelPath
    role: Literal["reference_project", "requirement_doc", "reference_image", "other"]
    public: bool


class SeedManifest(Contract):
    """`<seed>/seed.json`."""

    seed_id: Slug
    title: Text
    software: Software
    start_mode: StartMode
    workflow_primary: WorkflowId
    profession_primary: ProfessionId
    provenance: Provenance
    materials: Annotated[list[Material], Field(min_length=1)]
    sanitization_policy: SanitizationPolicy
    # None: human if draft/ exists, else model; left out of dumps so hashes of seeds stay put
    authoring: Literal["human", "model"] | None = Field(None, exclude_if=lambda v: v is None)

    @model_validator(mode="after")
    def _one_reference_project(self) -> SeedManifest:
        count = sum(m.role == "reference_project" for m in self.materials)
        if count != 1:
            raise ValueError(f"materials must hold exactly one reference_project, not {count}")
        return self

    @property
    def reference_project(self) -> Material:
        return next(m for m in self.materials if m.role == "reference_project")


# --- task -------------------------------------------------------------------------------------


class Criterion(Contract):
    id: CriterionId
    requirement_id: Annotated[str, StringConstraints(pattern=REQUIREMENT_ID)]
    channel: Literal["rule", "vl"]
    method: Method
    weight: UnitInterval
    core: bool
    description: Text


class VerificationWeights(Contract):
    """Channel weights of the reward; `agent` is always 0: no autonomous agent grades."""

    rule: UnitInterval
    vl: UnitInterval
    agent: Zero


class Verification(Contract):
    weights: VerificationWeights
    pass_threshold: UnitInterval
    core_failure_cap: UnitInterval


class MutationAllowance(Contract):
    operator: Annotated[str, Field(min_length=1)]
    reason: Annotated[str, Field(min_length=1)]


class Task(Contract):
    """`<seed>/draft/task.json`, and the frozen copy in the store."""

    task_id: Slug
    title: Text
    status: Literal["draft", "frozen"]
    start_mode: StartMode
    software: Software
    workflow_primary: WorkflowId
    profession_primary: ProfessionId
    instruction: RelPath
    public_attachments: Annotated[list[RelPath], AfterValidator(_unique)]
    criteria: Annotated[list[Criterion], Field(min_length=1)]
    verification: Verification
    scoring_profile: ScoringProfileRef
    pipeline_ref: PipelineRef | None
    sanitization_policy: SanitizationPolicy
    # gaming operators this grader may let survive, each with the reason the reviewer reads
    # (left out of the dump when absent: documents are hashed, a model must not add a null)
    mutation_allowed: list[MutationAllowance] | None = Field(default=None, exclude_if=lambda v: v is None)

    @model_validator(mode="after")
    def _frozen_has_pipeline(self) -> Task:
        if self.status == "frozen" and self.pipeline_ref is None:
            raise ValueError("a frozen task names the pipeline that froze it (pipeline_ref)")
        return self


# --- taxonomy ---------------------------------------------------------------------------------


class Profession(Contract):
    id: ProfessionId
    name: Text
    description: Text


class Group(Contract):
    id: GroupId
    name: Text
    description: Text


class Workflow(Contract):
    id: WorkflowId
    group: GroupId
    name: Text
    description: Text
    professions: Annotated[list[ProfessionId], Field(min_length=1), AfterValidator(_unique)]


class Taxonomy(Contract):
    """`contracts/taxonomy.json`. Referential integrity (ids unique, groups and professions
    known) is beyond the schema and checked by `contracts.seed_check.check_taxonomy`."""

    taxonomy_version: Annotated[str, StringConstraints(pattern=SEMVER)]
    software: Literal["blender"]
    professions: Annotated[list[Profession], Field(min_length=1)]
    groups: Annotated[list[Group], Field(min_length=1)]
    workflows: Annotated[list[Workflow], Field(min_length=1)]

    def workflow_ids(self) -> frozenset[str]:
        return frozenset(w.id for w in self.workflows)

    def profession_ids(self) -> frozenset[str]:
        return frozenset(p.id for p in self.professions)

    def workflow(self, workflow_id: str) -> Workflow:
        """The workflow with this id; KeyError when the taxonomy has none."""
        for workflow in self.workflows:
            if workflow.id == workflow_id:
                return workflow
        raise KeyError(workflow_id)


# --- rubric -----------------------------------------------------------------------------------


class RubricCriterion(Contract):
    id: CriterionId
    method: Method
    params: dict[str, Any]  # method-specific; the method validates its own parameters


class Rubric(Contract):
    """`<seed>/draft/rubric.json`: private parameters of the rule criteria."""

    rubric_version: Version
    criteria: list[RubricCriterion]  # empty for a task graded by the vl channel only


# --- trial record -----------------------------------------------------------------------------


class TrialException(Contract):
    """An infrastructure failure that survived retries: reported, never scored."""

    type: Text
    message: str


class TrialFailureRecord(Contract):
    """Why a trial did not end cleanly and who caused it (docs/failures.md)."""

    kind: FailureKind
    type: Text
    message: str
    evidence: dict[str, Any]  # e.g. tool call, exit code, log tail


class TrialJudge(Contract):
    """Who answered the VL questions of a trial."""

    id: Text
    kind: Literal["offline-metric", "model"]
    label: Text


class TrialCost(Contract):
    """What a trial cost; null where it was not measured."""

    wall_sec: Seconds
    agent_sec: Seconds | None
    model_calls: Count | None
    input_tokens: Count | None
    output_tokens: Count | None
    agent_steps: Count | None
    sandbox_cpu_sec: Seconds | None
    gpu_sec: Seconds | None


class TrialRecovery(Contract):
    """The recovery round that re-ran a trial, and the record (its sha256) it replaces."""

    round: Positive
    replaces_sha256: Sha256


# Optional properties of a trial record that may also be null (see `_leave_out_unset`).
_TRIAL_OPTIONAL_NULLABLE = frozenset(
    {"model", "reasoning_effort", "evidence", "trajectory", "harbor_trial", "recovery", "renders"}
)


class TrialRecord(Contract):
    """One line of `trials.jsonl`."""

    trial_id: Text
    task_id: Slug
    task_version: Text
    config: Text
    config_kind: ConfigKind
    label: Text
    stage: Literal["pilot", "evaluation", "campaign"]
    attempt: Positive
    verifier_version: Text
    scoring_profile: ScoringProfileRef
    reward: UnitInterval | None
    success: bool | None
    exception: TrialException | None
    failure: TrialFailureRecord | None
    timed_out: bool
    judge: TrialJudge | None
    delivery: StoreRef | None
    report: StoreRef | None
    score: StoreRef | None
    started_at: Timestamp
    finished_at: Timestamp
    # Optional, written by campaigns: absent stays absent on dump. These may not be null...
    campaign_id: Text | None = Field(None, exclude_if=_absent)
    agent: Text | None = Field(None, exclude_if=_absent)
    validated: bool | None = Field(None, exclude_if=_absent)
    publication_id: Text | None = Field(None, exclude_if=_absent)
    cost: TrialCost | None = Field(None, exclude_if=_absent)
    # ...and these may (`_TRIAL_OPTIONAL_NULLABLE`): a null is dumped, an absent one is not.
    model: Text | None = None
    reasoning_effort: ReasoningEffort | None = None
    evidence: StoreRef | None = None  # Harbor's trial directory, stored as a tree
    trajectory: StoreRef | None = None
    harbor_trial: Text | None = None
    recovery: TrialRecovery | None = None
    renders: StoreRef | None = None  # the delivery's evidence renders (review site)

    _absent_not_null = field_validator(
        "campaign_id", "agent", "validated", "publication_id", "cost"
    )(classmethod(_not_null))

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _leave_out_unset(self, handler, _TRIAL_OPTIONAL_NULLABLE)

    @model_validator(mode="after")
    def _exception_is_not_a_score(self) -> TrialRecord:
        if self.exception is not None and (self.reward is not None or self.success is not None):
            raise ValueError("a trial that ended in an exception has null reward and success")
        infra = self.failure is not None and self.failure.kind == "infra"
        if infra and (self.reward is not None or self.success is not None):
            raise ValueError("a trial with an infra failure has null reward and success")
        return self


# --- evaluation plan --------------------------------------------------------------------------


class EvaluationConfig(Contract):
    config_id: Text
    kind: ConfigKind
    label: Text


class EvaluationPlan(Contract):
    """`evaluation-plan.json`, registered before the first evaluation trial."""

    plan_id: Text
    task_id: Slug
    task_version: Text
    verifier_version: Text
    scoring_profile: ScoringProfileRef
    pipeline_ref: PipelineRef
    configs: Annotated[list[EvaluationConfig], Field(min_length=1)]
    k: Positive
    metrics: Annotated[
        list[Literal["avg@k", "pass@k", "reward_delta"]],
        Field(min_length=1),
        AfterValidator(_unique),
    ]
    pass_threshold: UnitInterval
    input_reward: UnitInterval | None
    created_at: Timestamp


# --- campaign plan ----------------------------------------------------------------------------


class CampaignDatasetSource(Contract):
    namespace: Text
    revision: Text
    split: Text
    manifest_sha256: Sha256


class CampaignSource(Contract):
    dataset: CampaignDatasetSource | None
    publications: list[Text]


class CampaignConfig(Contract):
    config_id: Text
    agent: Text
    kind: ConfigKind
    label: Text
    model: Text | None
    reasoning_effort: ReasoningEffort | None
    timeout_sec: Annotated[int, Field(gt=0)] | Annotated[float, Field(gt=0)] | None
    attempts: Positive
    validated: bool
    agent_kwargs: dict[str, Any]  # the agent's own options, passed through as they are


class CampaignTask(Contract):
    task_id: Slug
    task_version: Text
    publication_id: Text
    publication_sha256: Sha256
    split: Text | None
    verifier_version: Text
    scoring_profile: ScoringProfileRef
    pass_threshold: UnitInterval
    input_reward: UnitInterval | None
    pipeline_ref: PipelineRef


class CampaignTrial(Contract):
    trial_id: Text
    task_id: Slug
    config_id: Text
    attempt: Positive


class CampaignStatistics(Contract):
    bootstrap_samples: Annotated[int, BeforeValidator(_integral), Field(ge=100)]
    confidence: Annotated[float, Field(gt=0, lt=1)]
    seed: Annotated[int, BeforeValidator(_integral)]


class CampaignPlan(Contract):
    """`evaluation-plan.json` of a campaign, registered before its first trial."""

    campaign_id: CampaignId
    created_at: Timestamp
    mode: Text
    registry_version: Text
    registry_sha256: Sha256
    source: CampaignSource
    configs: Annotated[list[CampaignConfig], Field(min_length=1)]
    tasks: Annotated[list[CampaignTask], Field(min_length=1)]
    trials: Annotated[list[CampaignTrial], Field(min_length=1)]
    metrics: Annotated[
        list[Literal["avg@k", "pass@k", "reward_delta", "win_tie_loss", "mcnemar_exact",
                     "paired_mean_difference"]],
        AfterValidator(_unique),
    ]
    statistics: CampaignStatistics
    caps: dict[Pool, Positive]
    trial_attempts: Positive

    @model_validator(mode="after")
    def _trials_are_planned(self) -> CampaignPlan:
        """Beyond the schema: every trial names a planned task and config, once."""
        tasks = {task.task_id for task in self.tasks}
        configs = {config.config_id for config in self.configs}
        seen: set[str] = set()
        for trial in self.trials:
            if trial.task_id not in tasks:
                raise ValueError(f"trial {trial.trial_id!r} names task {trial.task_id!r}, not in tasks")
            if trial.config_id not in configs:
                raise ValueError(f"trial {trial.trial_id!r} names config {trial.config_id!r}, not in configs")
            if trial.trial_id in seen:
                raise ValueError(f"trial id {trial.trial_id!r} is not unique")
            seen.add(trial.trial_id)
        return self


# --- recovery audit ---------------------------------------------------------------------------


class RecoveryFailure(Contract):
    kind: FailureKind
    type: Text


class RecoveredTrial(Contract):
    trial_id: Text
    original_sha256: Sha256
    original_failure: RecoveryFailure
    recovered_sha256: Sha256
    recovered_reward: UnitInterval | None
    recovered_success: bool | None
    recovered_failure: RecoveryFailure | None


class RecoveryBackup(Contract):
    location: Text
    sha256: Sha256
    records: Positive


class RecoveryTrialsJsonl(Contract):
    original_sha256: Sha256
    recovered_sha256: Sha256


class RecoveryAudit(Contract):
    """`recoveries/<round>/audit.json` of a campaign: one round of re-run trials."""

    campaign_id: CampaignId
    round: Positive
    requested_by: Text
    reason: Text
    created_at: Timestamp
    trial_ids: Annotated[list[Text], Field(min_length=1), AfterValidator(_unique)]
    backup: RecoveryBackup
    replaced: Annotated[list[RecoveredTrial], Field(min_length=1)]
    trials_jsonl: RecoveryTrialsJsonl

    @model_validator(mode="after")
    def _replaced_are_the_trials(self) -> RecoveryAudit:
        """Beyond the schema: `replaced` names each trial of `trial_ids` once, and no other."""
        names = [entry.trial_id for entry in self.replaced]
        replaced, wanted = set(names), set(self.trial_ids)
        if replaced != wanted:
            raise ValueError(
                "replaced must name exactly the trials of trial_ids; "
                f"missing {sorted(wanted - replaced)}, unexpected {sorted(replaced - wanted)}"
            )
        if len(names) != len(replaced):
            raise ValueError("replaced names a trial more than once")
        return self


# --- publication ------------------------------------------------------------------------------


class PreviousPublication(Contract):
    publication_id: Name
    sha256: Sha256


class PublishedFile(Contract):
    path: RelPath
    sha256: Sha256
    size: Count


class DatasetLink(Contract):
    namespace: Slug
    revision: Name
    sequence: Positive
    previous: PreviousPublication | None

    @model_validator(mode="after")
    def _chained(self) -> DatasetLink:
        if (self.sequence == 1) != (self.previous is None):
            raise ValueError("the first publication of a revision has no previous one; every later one has one")
        return self


class Publication(Contract):
    """`publication.json`: an immutable release, chained to the revision it supersedes."""

    publication_id: Name
    task_id: Slug
    task_version: Text
    revision: Positive
    previous: PreviousPublication | None
    pipeline_ref: PipelineRef
    created_at: Timestamp
    # Optional in the schema: absent is fine, null is not (defaults are not validated, so an
    # explicit null still reaches the validator below). Left out of dumps when absent.
    content_sha256: Sha256 | None = Field(default=None, exclude_if=lambda value: value is None)
    files: Annotated[list[PublishedFile], Field(min_length=1)]
    # Inside a dataset revision: its link in the revision's hash chain (absent outside one).
    dataset: DatasetLink | None = Field(default=None, exclude_if=lambda value: value is None)

    _absent_not_null = field_validator("content_sha256", "dataset")(classmethod(_not_null))

    @model_validator(mode="after")
    def _chained(self) -> Publication:
        if (self.revision == 1) != (self.previous is None):
            raise ValueError("revision 1 has no previous publication; every later one has one")
        return self


# --- handoff event ----------------------------------------------------------------------------


class HandoffSubject(Contract):
    task_id: Slug
    task_version: Text


class HandoffDatasetSubject(Contract):
    namespace: Slug
    revision: Name


class HandoffPublication(Contract):
    publication_id: Name
    path: Text
    sha256: Sha256


class HandoffManifest(Contract):
    path: Text
    sha256: Sha256
    semantic_digest: Sha256


class HandoffEvent(Contract):
    """`var/handoff/<kind>/<event_id>.json`: a publication is ready, or a dataset revision froze."""

    event_id: Name
    kind: Literal["publication", "freeze"]
    created_at: Timestamp
    subject: HandoffSubject | HandoffDatasetSubject
    publication: HandoffPublication | None = Field(default=None, exclude_if=_absent)
    manifest: HandoffManifest | None = Field(default=None, exclude_if=_absent)

    _absent_not_null = field_validator("publication", "manifest")(classmethod(_not_null))

    @model_validator(mode="after")
    def _by_kind(self) -> HandoffEvent:
        if self.kind == "publication":
            if self.publication is None or self.manifest is not None or not isinstance(self.subject, HandoffSubject):
                raise ValueError("a publication event names a task and its publication, and has no manifest")
        elif self.manifest is None or self.publication is not None or not isinstance(self.subject, HandoffDatasetSubject):
            raise ValueError("a freeze event names a dataset revision and its manifest, and has no publication")
        return self


# --- dataset revisions ------------------------------------------------------------------------


class SeedFolder(Contract):
    folder: SeedPath


class DatasetCoverage(Contract):
    min_groups_per_split: Count = 0
    min_professions_per_split: Count = 0
    min_sources: Count = 0


class DatasetSpec(Contract):
    """`dataset.json` of a dataset revision: what DatasetProduction makes and how freeze splits it."""

    namespace: Slug
    revision: Name
    seeds: Annotated[list[SeedPath], Field(min_length=1), AfterValidator(_unique)] | SeedFolder
    splits: Annotated[dict[Slug, Positive], Field(min_length=1)]
    max_per_source: Positive
    coverage: DatasetCoverage = Field(default_factory=DatasetCoverage)
    selection_seed: Count = 0
    concurrency: Annotated[int, BeforeValidator(_integral), Field(ge=1, le=64)] = 4
    options: dict[str, Any] | None = Field(default=None, exclude_if=_absent)

    _absent_not_null = field_validator("options")(classmethod(_not_null))


class ChainHead(Contract):
    sequence: Positive
    sha256: Sha256


class SplitEntry(Contract):
    task_id: Slug
    task_version: Text
    publication_id: Name
    publication_sha256: Sha256
    source: Text
    workflow_group: GroupId
    profession: ProfessionId


class SplitManifest(Contract):
    """`freeze/split-manifest.json` of a frozen dataset revision (written once)."""

    namespace: Slug
    revision: Name
    created_at: Timestamp
    selection_seed: Count
    spec_sha256: Sha256
    chain_head: ChainHead
    semantic_digest: Sha256
    splits: Annotated[dict[Slug, list[SplitEntry]], Field(min_length=1)]


# --- privacy policy ---------------------------------------------------------------------------


class PrivacyRule(Contract):
    """One rule of a privacy policy: a regular expression, what kind of problem its match is,
    and optionally a check of the match (`validator`) and exceptions (`allow`)."""

    id: Slug
    kind: Literal["forbidden", "secret", "personal"]
    description: Text
    pattern: Text
    validator: Literal["luhn", "prc_id", "e164", "token_like"] | None = Field(None, exclude_if=_absent)
    allow: list[Text] | None = Field(None, exclude_if=_absent)

    _absent_not_null = field_validator("validator", "allow", mode="before")(classmethod(_not_null))


class PrivacyPolicy(Contract):
    """`contracts/privacy/<policy_id>@<policy_version>.json` (docs/privacy.md)."""

    policy_id: Name
    policy_version: Version
    title: Text
    description: Text | None = Field(None, exclude_if=_absent)
    rules: Annotated[list[PrivacyRule], Field(min_length=1)]
    allowed_licences: Annotated[list[Name], Field(min_length=1), AfterValidator(_unique)]

    _absent_not_null = field_validator("description", mode="before")(classmethod(_not_null))


# --- pipeline configuration -------------------------------------------------------------------


class PipelineConfig(Contract):
    """`contracts/pipeline.json`. Not a published document, so it has no schema; unknown keys
    are kept (the configuration grows), the known ones are typed. Every key is covered by
    `pipeline_digest`."""

    model_config = ConfigDict(extra="allow")

    pipeline_id: Name
    pipeline_version: Version
    k: Positive
    pilot_policies: Annotated[list[Text], Field(min_length=1)]
    evaluation_policies: Annotated[list[Text], Field(min_length=1)]
    calibration_reference_min: UnitInterval
    calibration_margin: UnitInterval  # stage 05 requires lowest good - highest bad reward >= this
    vl_judge: Literal["image-metric", "model"] = "image-metric"  # who judges the VL channel
    max_author_rounds: Positive = 3  # model authoring: author + check rounds at most
    derivation_similarity_threshold: UnitInterval = 0.6  # derived seeds at or above: near-duplicate
