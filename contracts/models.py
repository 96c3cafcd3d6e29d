"""The documents of the pipeline as pydantic models: the one description of each document.

The JSON Schemas in `contracts/schemas/` are generated from these models
(`contracts/json_schemas.py`, `make schemas`), so code gets typed, immutable documents and
outside readers get standard schemas, both from one source. Documents are checked against the
schema first (its errors name the field and explain a pattern) and built into the model after,
so the two must accept and reject exactly the same documents, which
`tests/unit/test_contract_agreement.py` checks on shared samples. That is why every model is
strict (JSON has no "0.5" for 0.5 and no `true` for 1), forbids unknown keys and matches strings
with Python's `re` like jsonschema does, and why a rule written as a validator is also stated
for the schema (`json_schema_extra`: `if`/`then`, `contains`, `uniqueItems`). A few rules that
JSON Schema cannot state (references between the parts of one document, ids unique by one
field) are checked by the models alone; their docstrings say so, and the tests check them apart
from the agreement samples.

Attribute docstrings are the properties' descriptions in the schemas.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    SerializerFunctionWrapHandler,
    StringConstraints,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue

# Patterns of the id-like strings; each is a named `$defs` entry of the generated schemas.
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
PARAMETER_NAME = r"^[a-z][a-z0-9_]{0,31}$"

def _integral(value: Any) -> Any:
    """JSON Schema counts 1.0 as an integer, so the models accept it too (as 1)."""
    if type(value) is float and value.is_integer():
        return int(value)
    return value


def _absent(value: Any) -> bool:
    return value is None


def _not_null(cls, value: Any) -> Any:
    """An optional property a document may leave out but not set to null (pydantic defaults
    are not validated, so an explicit null still reaches this)."""
    if value is None:
        raise ValueError("may be left out, but not null")
    return value


def _no_null_in_schema(schema: dict[str, Any]) -> None:
    """The schema side of `_not_null`: the property's type without its null branch."""
    schema.pop("default", None)
    branches = [branch for branch in schema.pop("anyOf") if branch != {"type": "null"}]
    if len(branches) == 1:
        schema.update(branches[0])
    else:
        schema["anyOf"] = branches


def omittable(description: str) -> Any:
    """A property a document may leave out (and a dump then leaves out too) but not set to
    null; pair it with a `_not_null` field validator."""
    return Field(None, exclude_if=_absent, description=description, json_schema_extra=_no_null_in_schema)


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
    if len(set(items)) != len(items):
        raise ValueError("has non-unique elements")
    return items


class UniqueItems:
    """`uniqueItems: true` for a list of strings: checked by the model, stated in the schema."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> Any:
        return AfterValidator(_unique).__get_pydantic_core_schema__(source, handler)

    def __get_pydantic_json_schema__(self, core: Any, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schema = handler(core)
        schema["uniqueItems"] = True
        return schema


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

# (Constraints come before a BeforeValidator: after it, pydantic still checks them but leaves them
# out of the JSON Schema.)
# A JSON number keeps its Python type (1 stays 1, 0.5 stays 0.5) so that a model dumps back to
# the document it was read from: documents are hashed, and 1 and 1.0 hash differently.
UnitInterval = Annotated[int, Field(ge=0, le=1)] | Annotated[float, Field(ge=0, le=1)]
Zero = Annotated[Annotated[int, Field(ge=0, le=0)] | Annotated[float, Field(ge=0, le=0)], WithJsonSchema({"const": 0})]
Count = Annotated[int, Field(ge=0), BeforeValidator(_integral)]
Positive = Annotated[int, Field(ge=1), BeforeValidator(_integral)]
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
        use_attribute_docstrings=True,
        # The validators are built on a model's first use, not at import: most processes that
        # import the contracts (a CLI's --help, a worker pool) use a few of the 74 models.
        defer_build=True,
    )


# --- shared parts -----------------------------------------------------------------------------


def software_release(text: str) -> tuple[int, int]:
    """major.minor of a release string ("5.2", "5.2.1" -> (5, 2))."""
    major, minor = text.split(".")[:2]
    return int(major), int(minor)


class SoftwareRange(Contract):
    min: Annotated[str, StringConstraints(pattern=SOFTWARE_VERSION)]
    """the oldest major.minor the seed runs on"""
    max: Annotated[str, StringConstraints(pattern=SOFTWARE_VERSION)]
    """the newest major.minor the seed runs on (inclusive)"""

    @model_validator(mode="after")
    def _ordered(self) -> SoftwareRange:
        if software_release(self.min) > software_release(self.max):
            raise ValueError(f"min {self.min} is newer than max {self.max}")
        return self


class Software(Contract):
    name: Literal["blender"]
    version: Annotated[str, StringConstraints(pattern=SOFTWARE_VERSION)]
    """the Blender release the seed was made with; admission refuses a runtime of another
    major.minor unless `accepts` includes it"""
    accepts: SoftwareRange | None = omittable(
        "optional: the major.minor range the seed is known to run on, when wider than `version`"
    )

    _absent_not_null = field_validator("accepts")(classmethod(_not_null))


class SanitizationPolicy(Contract):
    policy_id: Name
    policy_version: Version


class ScoringProfileRef(Contract):
    """Scores are only comparable under the same profile id and version."""

    profile_id: Name
    profile_version: Version


class PipelineRef(Contract):
    """The pipeline (schemas, taxonomy, configuration and verifiers) that froze a task, identified
    by `pipeline_digest`, so a frozen task can be traced to exactly the code that checked it."""

    pipeline_id: Name
    pipeline_version: Version
    pipeline_digest: Sha256


class StoreRef(Contract):
    """A blob in the content-addressed store: `key` locates it, `sha256` proves its content."""

    key: Text
    sha256: Sha256
    size: Count


# --- seed manifest ----------------------------------------------------------------------------


class LineageParent(Contract):
    """One ancestor of a derived seed: the task it was derived from."""

    task_id: Text
    """the parent task's id (a foreign Harbor task: its folder name)"""
    task_version: Text | None = omittable("the parent's task version (task.toml [metadata]), when it has one")
    publication_sha256: Sha256 | None = omittable("sha256 of the parent's publication.json, when it is a publication")
    namespace: Slug | None = omittable("the dataset revision the parent was published into")
    revision: Name | None = omittable("its revision in that namespace")
    split: Slug | None = omittable("the split the parent sits in, when that revision is frozen")

    _absent_not_null = field_validator(
        "task_version", "publication_sha256", "namespace", "revision", "split")(classmethod(_not_null))


class Lineage(Contract):
    """Where a seed comes from, kept through derivation and model authoring: the split key of
    dataset revisions (docs/datasets.md, "Lineage"). A seed without one is its own root."""

    root_seed: Text
    """the seed id of the original human-collected seed (a foreign task: its name)"""
    family: Text
    """the original provenance source: what split isolation, max_per_source and coverage count"""
    derived_from: list[LineageParent] = Field(default_factory=list)
    """the chain of parents, oldest first; the last is the task this seed was derived from"""
    split: Slug | None = omittable("the split this family is pinned to: a freeze places it only there")

    _absent_not_null = field_validator("split")(classmethod(_not_null))


ParameterName = Annotated[str, StringConstraints(pattern=PARAMETER_NAME)]
ParameterValue = Annotated[int, Field(strict=True)] | float | Annotated[str, StringConstraints(min_length=1, max_length=200)]


class FamilyParameter(Contract):
    """One parameter of a seed family: one of listed `choices` (numbers or words), or a number
    on the grid `min`, `min + step`, ... `max` (so instances state clean values). That the
    default is one of the values is checked by the model alone."""

    model_config = ConfigDict(json_schema_extra={"oneOf": [
        {"required": ["choices"], "not": {"anyOf": [{"required": [k]} for k in ("min", "max", "step")]}},
        {"required": ["min", "max", "step"], "not": {"required": ["choices"]}}]})

    default: ParameterValue
    """the root seed's value: the seed folder as written is the family at its defaults"""
    choices: Annotated[list[ParameterValue], Field(min_length=2, max_length=1000), UniqueItems()] | None = \
        omittable("every value an instance may take (or min, max and step)")
    min: int | float | None = omittable("the grid's lowest value")
    max: int | float | None = omittable("the grid's highest value")
    step: Annotated[int, Field(gt=0)] | Annotated[float, Field(gt=0)] | None = omittable("the grid's spacing")

    _absent_not_null = field_validator("choices", "min", "max", "step")(classmethod(_not_null))

    @model_validator(mode="after")
    def _one_form_holding_the_default(self) -> FamilyParameter:
        grid = (self.min, self.max, self.step)
        if self.choices is not None:
            if any(v is not None for v in grid):
                raise ValueError("give either choices or min, max and step, not both")
            if self.default not in self.choices:
                raise ValueError(f"default {self.default!r} is not one of the choices")
            return self
        if self.min is None or self.max is None or self.step is None:
            raise ValueError("give either choices or all of min, max and step")
        if not isinstance(self.default, (int, float)):
            raise ValueError(f"default {self.default!r} is not a number (min, max and step make a number grid)")
        if self.max <= self.min:
            raise ValueError(f"max {self.max} must be above min {self.min}")
        if (self.max - self.min) / self.step > 100000:
            raise ValueError("more than 100000 grid values: use a larger step")
        k = round((self.default - self.min) / self.step)
        if not self.min <= self.default <= self.max or abs(self.min + k * self.step - self.default) > 1e-9:
            raise ValueError(f"default {self.default} is not on the grid {self.min}, {self.min} + {self.step}, "
                             f"... {self.max}")
        return self


class SeedFamily(Contract):
    """seed.json `family`: the seed is one job at many specifications (docs/seed-authoring.md,
    "Seed families"). The folder as written is the family at its parameters' defaults; each
    instance renders the Jinja2 templates under `family/` with its own values over those files."""

    parameters: Annotated[dict[ParameterName, FamilyParameter], Field(min_length=1, max_length=16)]
    """parameter name (a template variable) -> its values"""
    count: Annotated[int, Field(ge=1, le=1000), BeforeValidator(_integral)]
    """how many instances the family has besides its root (`arkevo seed expand` makes them all; a
    dataset spec's `family_instances` takes the first N)"""
    sampler_seed: Count = 0
    """the seed of the deterministic sampler: the same seed gives the same instances"""


class FamilyInstance(Contract):
    """provenance.family_instance of an instance seed: which family it is and with which values."""

    root_seed: Slug
    """the family's seed id (its root folder)"""
    index: Annotated[int, Field(ge=1, le=1000), BeforeValidator(_integral)]
    """the instance's number, 1..count (the root itself is instance 0 and carries no such entry)"""
    sampler_seed: Count
    parameters: Annotated[dict[ParameterName, ParameterValue], Field(min_length=1)]
    """the values this instance renders its templates with"""


class Provenance(Contract):
    source: Text
    license: Text
    collected_by: Text
    lineage: Lineage | None = omittable(
        "optional: the seed's lineage (a derived seed); absent: the seed is its own root "
        "(root_seed = seed_id, family = source)")
    family_instance: FamilyInstance | None = omittable(
        "an instance of a seed family (written by `arkevo seed expand`): its root and values")

    _absent_not_null = field_validator("lineage", "family_instance")(classmethod(_not_null))


class Material(Contract):
    path: RelPath
    role: Literal["reference_project", "requirement_doc", "reference_image", "other"]
    public: bool


class SeedManifest(Contract):
    """<seed>/seed.json: what a seed folder holds, where its materials come from and which
    workflow it exercises. Seeds are written outside the project, so these names are stable."""

    seed_id: Slug
    title: Text
    software: Software
    start_mode: StartMode
    workflow_primary: WorkflowId
    profession_primary: ProfessionId
    provenance: Provenance
    materials: list[Material] = Field(
        min_length=1,
        json_schema_extra={
            "contains": {
                "type": "object",
                "required": ["role"],
                "properties": {"role": {"const": "reference_project"}},
            },
            "minContains": 1,
            "maxContains": 1,
        },
    )
    """exactly one material has the role reference_project"""
    sanitization_policy: SanitizationPolicy
    # left out of dumps when absent so hashes of seeds stay put
    family: SeedFamily | None = omittable(
        "optional: the seed is a family of instances (docs/seed-authoring.md, \"Seed families\")")
    authoring: Literal["human", "model"] | None = Field(None, exclude_if=_absent)
    """who writes the draft: human (the seed's draft/ folder) or model (the author model in
    stage 03, docs/authoring.md); absent or null: human when draft/ exists, else model"""

    _absent_not_null = field_validator("family")(classmethod(_not_null))

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
    """the requirement this criterion grades; it must appear in the instruction or a public attachment"""
    channel: Literal["rule", "vl"]
    method: Method
    weight: UnitInterval
    """share of the criterion within its channel; the weights of a channel sum to 1"""
    core: bool
    """a failed core criterion caps the reward at core_failure_cap and fails the task"""
    description: Text


class VerificationWeights(Contract):
    """Channel weights of the reward."""

    rule: UnitInterval
    vl: UnitInterval
    agent: Zero
    """no autonomous agent grades a rollout, so the agent weight is always 0"""


class Verification(Contract):
    weights: VerificationWeights
    pass_threshold: UnitInterval
    core_failure_cap: UnitInterval


class MutationAllowance(Contract):
    operator: Annotated[str, Field(min_length=1)]
    reason: Annotated[str, Field(min_length=1)]


class Task(Contract):
    """<seed>/draft/task.json and the frozen copy in the store: what the solver is asked to do
    and how the delivery is graded."""

    model_config = ConfigDict(
        json_schema_extra={
            "if": {"required": ["status"], "properties": {"status": {"const": "frozen"}}},
            "then": {
                "properties": {
                    "pipeline_ref": {"description": "a frozen task names the pipeline that froze it", "type": "object"}
                }
            },
        }
    )

    task_id: Slug
    title: Text
    status: Literal["draft", "frozen"]
    start_mode: StartMode
    software: Software
    workflow_primary: WorkflowId
    profession_primary: ProfessionId
    instruction: RelPath
    """the instruction file, relative to draft/"""
    public_attachments: Annotated[list[RelPath], UniqueItems()]
    """files the solver sees besides the instruction, relative to draft/"""
    criteria: Annotated[list[Criterion], Field(min_length=1)]
    verification: Verification
    scoring_profile: ScoringProfileRef
    pipeline_ref: PipelineRef | None
    """null while a draft; the pipeline that froze the task once frozen"""
    sanitization_policy: SanitizationPolicy
    # left out of the dump when absent: documents are hashed, a model must not add a null
    mutation_allowed: list[MutationAllowance] | None = omittable(
        "gaming operators (verifiers/mutation_testing.py OPERATOR_NAMES) this task's grader may "
        "let survive, each with the reason the reviewer reads"
    )

    _absent_not_null = field_validator("mutation_allowed")(classmethod(_not_null))

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
    professions: Annotated[list[ProfessionId], Field(min_length=1), UniqueItems()]


class Taxonomy(Contract):
    """contracts/taxonomy.json: professions x production groups x workflows; every task names
    one primary workflow and profession. Referential integrity (ids unique, groups and
    professions known) is beyond the schema and checked by `contracts.seed_check.check_taxonomy`."""

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
    params: dict[str, Any]
    """method-specific parameters; their shape belongs to the method, so they are an open object"""


class Rubric(Contract):
    """<seed>/draft/rubric.json: the private parameters of each rule criterion, read only by the
    verifier."""

    rubric_version: Version
    criteria: list[RubricCriterion]
    """one entry per rule criterion of the task; empty when the task has none"""


# --- trial record -----------------------------------------------------------------------------


class TrialException(Contract):
    """An infrastructure failure that survived retries: reported, never scored."""

    type: Text
    message: str


class TrialFailureRecord(Contract):
    """Why a trial did not end cleanly and who caused it (docs/failures.md)."""

    kind: FailureKind
    """infra: retried, never scored; solver: a graded attempt; author: the draft's own script failed"""
    type: Text
    """a short machine name, e.g. BlenderHostDied, DeliveryNotBlend, AgentTimeout"""
    message: str
    evidence: dict[str, Any]
    """what supports the attribution, e.g. the tool call, exit code, log tail"""


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
    """The recovery round that re-ran a trial, and the record it replaces."""

    round: Positive
    replaces_sha256: Sha256
    """sha256 of the trial record this one replaces"""


def _null_reward_and_success(when: str) -> dict[str, Any]:
    return {
        "reward": {"description": f"{when} has no reward: it is never a model's 0", "type": "null"},
        "success": {"description": f"{when} has no success verdict", "type": "null"},
    }


# Optional properties of a trial record that may also be null (see `_leave_out_unset`).
_TRIAL_OPTIONAL_NULLABLE = frozenset(
    {"model", "reasoning_effort", "evidence", "trajectory", "harbor_trial", "recovery", "renders"}
)


class TrialRecord(Contract):
    """One line of trials.jsonl: one attempt of one solver configuration on one task version,
    graded by one verifier version and scoring profile."""

    model_config = ConfigDict(
        json_schema_extra={
            "allOf": [
                {
                    "if": {"required": ["exception"], "properties": {"exception": {"type": "object"}}},
                    "then": {"properties": _null_reward_and_success("a trial that ended in an infrastructure exception")},
                },
                {
                    "if": {
                        "required": ["failure"],
                        "properties": {
                            "failure": {"type": "object", "required": ["kind"], "properties": {"kind": {"const": "infra"}}}
                        },
                    },
                    "then": {"properties": _null_reward_and_success("an infra failure")},
                },
            ]
        }
    )

    trial_id: Text
    task_id: Slug
    task_version: Text
    config: Text
    """the solver policy or model configuration id"""
    config_kind: ConfigKind
    label: Text
    """how the result must be presented, e.g. 'scripted policy — not a model result'"""
    stage: Literal["pilot", "evaluation", "campaign"]
    attempt: Positive
    verifier_version: Text
    scoring_profile: ScoringProfileRef
    reward: UnitInterval | None
    """null when the trial was not scored (an exception, or a weighted channel without a score)"""
    success: bool | None
    exception: TrialException | None
    """an infrastructure failure that survived retries; it is reported, never scored"""
    failure: TrialFailureRecord | None
    """why the trial did not end cleanly and who caused it (docs/failures.md); null when it did"""
    timed_out: bool
    """the agent ran out of time; the attempt is still graded (unlike an exception)"""
    judge: TrialJudge | None
    """who answered the VL questions (null when the profile does not weight VL); the offline
    image-metric judge is labelled as such, never a model result"""
    delivery: StoreRef | None
    report: StoreRef | None
    score: StoreRef | None
    """the full score record under the scoring profile (rule, VL answers, caps)"""
    started_at: Timestamp
    finished_at: Timestamp
    # Optional (campaigns write them; stage 06 writes cost): absent stays absent on dump. These may not be null...
    campaign_id: Text | None = omittable("optional: the campaign this trial belongs to (absent outside one)")
    agent: Text | None = omittable("optional: the agent that ran, e.g. 'oracle', 'arkevo-llm', 'harbor:nop', 'pkg.mod:Class'")
    validated: bool | None = omittable("optional: whether the config was validated before the campaign ran it")
    publication_id: Text | None = omittable("optional: the publication of the task version the trial ran")
    blender_version: Annotated[str, StringConstraints(pattern=SOFTWARE_VERSION)] | None = omittable(
        "optional: the Blender release the trial's worker ran (absent where it was not recorded, "
        "and for a trial that never ran)"
    )
    cost: TrialCost | None = omittable("optional: what the trial cost; null inside where it was not measured")
    # ...and these may (`_TRIAL_OPTIONAL_NULLABLE`): a null is dumped, an absent one is not.
    model: Text | None = None
    """optional: the model the agent used; null for an agent without one"""
    reasoning_effort: ReasoningEffort | None = None
    """optional: the model's reasoning effort; null when not set"""
    evidence: StoreRef | None = None
    """optional: Harbor's trial directory, stored as a tree"""
    trajectory: StoreRef | None = None
    """optional: the agent's trajectory"""
    harbor_trial: Text | None = None
    """optional: Harbor's name of the trial"""
    recovery: TrialRecovery | None = None
    """optional: the recovery round that re-ran this trial and the record it replaces; null for an original record"""
    renders: StoreRef | None = None
    """store tree of the delivery's evidence renders the VL judge saw (absent or null when the
    profile does not weight VL or nothing was rendered); the review site shows them"""

    _absent_not_null = field_validator(
        "campaign_id", "agent", "validated", "publication_id", "cost", "blender_version"
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
    """evaluation-plan.json: registered before any evaluation trial runs, so the configs, k,
    metrics and grading versions cannot be chosen after seeing results."""

    plan_id: Text
    task_id: Slug
    task_version: Text
    verifier_version: Text
    scoring_profile: ScoringProfileRef
    pipeline_ref: PipelineRef
    configs: Annotated[list[EvaluationConfig], Field(min_length=1)]
    k: Positive
    """attempts per config"""
    metrics: Annotated[
        list[Literal["avg@k", "pass@k", "reward_delta"]],
        Field(min_length=1),
        UniqueItems(),
    ]
    pass_threshold: UnitInterval
    input_reward: UnitInterval | None
    """the reward of the untouched starting workspace (the baseline of reward_delta); null when there is none"""
    created_at: Timestamp


# --- campaign plan ----------------------------------------------------------------------------


class CampaignDatasetSource(Contract):
    """A split of a frozen dataset revision, pinned by its split manifest; or (target
    `candidates`) the committed candidates of a revision, frozen or not, each pinned by its
    chain link's publication sha256."""

    namespace: Text
    revision: Text
    split: Text | None
    """the split evaluated; null for the candidates target"""
    manifest_sha256: Sha256 | None
    """sha256 of the revision's freeze/split-manifest.json; null for the candidates target"""
    target: Literal["split", "candidates"] | None = omittable(
        "what of the revision is evaluated: a frozen split (also when left out) or every committed candidate"
    )

    _absent_not_null = field_validator("target")(classmethod(_not_null))


class CampaignRetracted(Contract):
    """A task the campaign left out because it was retracted from its dataset revision."""

    task_id: Slug
    publication_id: Name
    reason: Text
    by: Text
    at: Timestamp


class CampaignSource(Contract):
    """Where the tasks come from: a frozen dataset split and/or publications."""

    dataset: CampaignDatasetSource | None
    publications: list[Text]
    retracted: Annotated[list[CampaignRetracted], Field(min_length=1)] | None = omittable(
        "tasks of the source left out because they were retracted (`arkevo dataset retract`)"
    )

    _absent_not_null = field_validator("retracted")(classmethod(_not_null))


class CampaignConfig(Contract):
    config_id: Text
    agent: Text
    """the agent, e.g. 'oracle', 'arkevo-llm', 'harbor:nop', 'pkg.mod:Class'"""
    kind: ConfigKind
    label: Text
    model: Text | None
    reasoning_effort: ReasoningEffort | None
    timeout_sec: Annotated[int, Field(gt=0)] | Annotated[float, Field(gt=0)] | None
    attempts: Positive
    validated: bool
    agent_kwargs: dict[str, Any]
    """the agent's own options, passed through as they are"""


class CampaignTask(Contract):
    task_id: Slug
    task_version: Text
    publication_id: Text
    publication_sha256: Sha256
    """sha256 of the publication's publication.json"""
    split: Text | None
    verifier_version: Text
    scoring_profile: ScoringProfileRef
    pass_threshold: UnitInterval
    input_reward: UnitInterval | None
    """the reward of the untouched starting workspace (the baseline of reward_delta); null when there is none"""
    pipeline_ref: PipelineRef


class CampaignTrial(Contract):
    trial_id: Text
    task_id: Slug
    config_id: Text
    attempt: Positive


class CampaignStatistics(Contract):
    bootstrap_samples: Annotated[int, Field(ge=100), BeforeValidator(_integral)]
    confidence: Annotated[float, Field(gt=0, lt=1)]
    seed: Annotated[int, BeforeValidator(_integral)]


class CampaignPlan(Contract):
    """evaluation-plan.json of a campaign: registered before its first trial runs, so the
    configs, tasks, trials, metrics and statistics cannot be chosen after seeing results. That
    every trial names a planned task and config, and that trial ids are unique, is checked by
    the model (beyond this schema)."""

    campaign_id: CampaignId
    created_at: Timestamp
    mode: Text
    registry_version: Text
    registry_sha256: Sha256
    source: CampaignSource
    configs: Annotated[list[CampaignConfig], Field(min_length=1)]
    tasks: Annotated[list[CampaignTask], Field(min_length=1)]
    trials: Annotated[list[CampaignTrial], Field(min_length=1)]
    """every trial the campaign will run, planned up front"""
    metrics: Annotated[
        list[Literal["avg@k", "pass@k", "reward_delta", "win_tie_loss", "mcnemar_exact",
                     "paired_mean_difference"]],
        UniqueItems(),
    ]
    statistics: CampaignStatistics
    caps: dict[Pool, Positive]
    """pool name -> its cap"""
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


# --- campaign preflight -----------------------------------------------------------------------


def _passed_has_no_error(names: tuple[str, ...]) -> dict[str, Any]:
    """The schema side of `ok`: a passed check has null `names`, a failed one a string in each."""
    return {
        "if": {"required": ["ok"], "properties": {"ok": {"const": True}}},
        "then": {"properties": {n: {"type": "null"} for n in names}},
        "else": {"properties": {n: {"type": "string"} for n in names}},
    }


def _check_errors(ok: bool, *errors: str | None) -> None:
    if any(ok != (e is None) for e in errors):
        raise ValueError("a check that passed has null error_type and error; a failed one names both")


class PreflightEndpoint(Contract):
    """One model endpoint as a gpu worker reached it: one real chat request (never a key)."""

    model_config = ConfigDict(json_schema_extra=_passed_has_no_error(("error_type", "error")))

    config_ids: Annotated[list[Text], Field(min_length=1), UniqueItems()]
    """the configs that share this endpoint, model and request extras (one request for them all)"""
    endpoint: str
    """scheme://host[:port]/path without userinfo, query or fragment; empty when the worker has
    no endpoint configured (ModelNotConfigured)"""
    model: Text | None
    """the model the agent would choose; null when none is configured"""
    reasoning_effort: ReasoningEffort | None
    ok: bool
    latency_sec: Seconds | None
    """seconds the request took; null when none was sent"""
    error_type: Literal["ModelEndpointUnreachable", "ModelNotConfigured"] | None
    error: str | None
    """why it failed, redacted; null when it answered"""

    @model_validator(mode="after")
    def _errors_match_ok(self) -> PreflightEndpoint:
        _check_errors(self.ok, self.error_type, self.error)
        return self


class PreflightSmoke(Contract):
    """A nop-agent trial in the real sandbox, not recorded: the sandbox starts, Blender opens
    the task's workspace, the verifier reports."""

    model_config = ConfigDict(json_schema_extra=_passed_has_no_error(("error_type", "error")))

    task_id: Slug
    ok: bool
    seconds: Seconds | None
    blender_version: Text | None
    """the Blender release the sandbox ran; null when the trial did not get that far"""
    criteria: Count | None
    """criteria in the verifier's report; null without a report"""
    error_type: Literal["SandboxSmokeFailed"] | None
    error: str | None
    """why it failed, redacted; null when it passed"""

    @model_validator(mode="after")
    def _errors_match_ok(self) -> PreflightSmoke:
        _check_errors(self.ok, self.error_type, self.error)
        return self


class PreflightFailure(Contract):
    """The first failed check: the named error the campaign (or recovery) failed with."""

    type: Literal["ModelEndpointUnreachable", "ModelNotConfigured", "SandboxSmokeFailed"]
    message: Text


class Preflight(Contract):
    """A campaign's preflight.json (or a recovery round's, recoveries/<round>/preflight.json):
    what a gpu worker checked before the first trial ran, and what it found. That `ok` holds
    exactly when every endpoint and the smoke trial passed is checked by the model (beyond this
    schema)."""

    model_config = ConfigDict(json_schema_extra={
        "if": {"required": ["ok"], "properties": {"ok": {"const": True}}},
        "then": {"properties": {"failure": {"type": "null"}}},
        "else": {"properties": {"failure": {"type": "object"}}},
    })

    campaign_id: CampaignId
    checked_at: Timestamp
    worker: Text
    """the gpu worker that ran the checks (host:pid)"""
    endpoints: list[PreflightEndpoint]
    """one per distinct endpoint, model and request extras of the `arkevo-llm` configs; empty
    when no config needs one"""
    smoke: PreflightSmoke | None
    """null: not run (an endpoint failed first, or no trial was left to run)"""
    recovery_round: Positive | None
    """the recovery round this preflight gated; null: a start or resume of the campaign"""
    ok: bool
    failure: PreflightFailure | None
    """the first failed check's named error; null when every check passed"""

    @model_validator(mode="after")
    def _ok_is_every_check(self) -> Preflight:
        """`failure` is null exactly when `ok` (the schema says so too); beyond the schema: `ok`
        is true exactly when every check that ran passed."""
        passed = all(e.ok for e in self.endpoints) and (self.smoke is None or self.smoke.ok)
        if self.ok != passed:
            raise ValueError("ok must be true exactly when every endpoint and the smoke trial passed")
        if self.ok != (self.failure is None):
            raise ValueError("a passed preflight has a null failure; a failed one names it")
        return self


# --- recovery audit ---------------------------------------------------------------------------


class RecoveryFailure(Contract):
    """The kind and type of a trial's failure (docs/failures.md)."""

    kind: FailureKind
    type: Text


class RecoveredTrial(Contract):
    trial_id: Text
    original_sha256: Sha256
    """sha256 of the trial record that was replaced"""
    original_failure: RecoveryFailure
    recovered_sha256: Sha256
    """sha256 of the trial record that replaced it"""
    recovered_reward: UnitInterval | None
    recovered_success: bool | None
    recovered_failure: RecoveryFailure | None


class RecoveryBackup(Contract):
    """The copy of trials.jsonl taken before any record was replaced."""

    location: Text
    sha256: Sha256
    records: Positive


class RecoveryTrialsJsonl(Contract):
    """sha256 of trials.jsonl before and after the round."""

    original_sha256: Sha256
    recovered_sha256: Sha256


class RecoveryAudit(Contract):
    """recoveries/<round>/audit.json of a campaign: who re-ran which trials and why, where the
    original trials.jsonl was backed up, and each replaced record with its original and
    recovered outcome. That `replaced` covers exactly `trial_ids` is checked by the model
    (beyond this schema)."""

    campaign_id: CampaignId
    round: Positive
    requested_by: Text
    reason: Text
    created_at: Timestamp
    trial_ids: Annotated[list[Text], Field(min_length=1), UniqueItems()]
    """the trials this round re-ran"""
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
    """sha256 of the previous publication's publication.json"""


def _first_has_no_previous(counter: str, first: str, later: str) -> dict[str, Any]:
    """The schema side of a chain rule: `previous` is null exactly when `counter` is 1."""
    return {
        "if": {"required": [counter], "properties": {counter: {"const": 1}}},
        "then": {"properties": {"previous": {"description": first, "type": "null"}}},
        "else": {"properties": {"previous": {"description": later, "type": "object"}}},
    }


class PublishedFile(Contract):
    path: RelPath
    sha256: Sha256
    size: Count


class DatasetLink(Contract):
    namespace: Slug
    revision: Name


class Publication(Contract):
    """publication.json of each publication: an immutable, content-addressed release of one task
    version, chained to the previous revision of the task and, inside a dataset revision, to the
    revision's previous publication."""

    model_config = ConfigDict(
        json_schema_extra=_first_has_no_previous(
            "revision",
            "revision 1 has no previous publication",
            "a later revision chains to the publication it supersedes",
        )
    )

    publication_id: Name
    task_id: Slug
    task_version: Text
    revision: Positive
    previous: PreviousPublication | None
    """the publication this revision supersedes; null for revision 1"""
    pipeline_ref: PipelineRef
    content_sha256: Sha256 | None = omittable(
        "optional: sha256 of the canonical JSON of `files`, so a rerun with the same content "
        "reuses this publication instead of adding a revision"
    )
    files: Annotated[list[PublishedFile], Field(min_length=1)]
    """the task version's files (task/ and private/): a function of its inputs, so the same
    seed and code publish the same bytes; run records are listed in records.json"""
    dataset: DatasetLink | None = omittable(
        "optional: the dataset revision this publication belongs to (absent for a publication "
        "outside any dataset); its place in the revision's hash chain is the chain link's"
    )

    _absent_not_null = field_validator("content_sha256", "dataset")(classmethod(_not_null))

    @model_validator(mode="after")
    def _chained(self) -> Publication:
        if (self.revision == 1) != (self.previous is None):
            raise ValueError("revision 1 has no previous publication; every later one has one")
        return self


class PublicationRecords(Contract):
    """<publication folder>/records.json: what the run that made the task version recorded --
    admission, authoring, calibration, the frozen record, the export scan, stage-06 trials --
    and when it published. Not part of the version (its times and trial bytes differ from run to
    run); a dataset revision's chain link records its sha256."""

    publication_id: Name
    published_at: Timestamp
    files: Annotated[list[PublishedFile], Field(min_length=1)]
    """every record file, with its sha256 and size"""


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
    """where the publication lies"""
    sha256: Sha256
    """sha256 of the publication's publication.json"""


class ChainHead(Contract):
    sequence: Positive
    sha256: Sha256


class HandoffManifest(Contract):
    path: Text
    """where the split manifest lies"""
    sha256: Sha256
    """sha256 of the split manifest file"""
    semantic_digest: Sha256
    """sha256 over the sorted task ids and versions of every split"""
    chain_head: ChainHead
    """the revision's hash chain as frozen: its last link's sequence number and publication.json sha256"""


class HandoffEvent(Contract):
    """var/handoff/<kind>/<event_id>.json: tells downstream consumers that a publication is
    ready, or that a dataset revision was frozen, naming it by path and sha256 so they can
    verify what they pick up."""

    model_config = ConfigDict(
        json_schema_extra={
            "if": {"required": ["kind"], "properties": {"kind": {"const": "publication"}}},
            "then": {
                "required": ["publication"],
                "properties": {
                    "subject": {"description": "a publication event names a task", "required": ["task_id"]},
                    "manifest": {"description": "a publication event has no manifest", "not": {}},
                },
            },
            "else": {
                "required": ["manifest"],
                "properties": {
                    "subject": {"description": "a freeze event names a dataset revision", "required": ["namespace"]},
                    "publication": {"description": "a freeze event has no publication", "not": {}},
                },
            },
        }
    )

    event_id: Name
    """also the event's file name, so it is a path-safe identifier"""
    kind: Literal["publication", "freeze"]
    created_at: Timestamp
    subject: HandoffSubject | HandoffDatasetSubject
    publication: HandoffPublication | None = omittable("the publication, for a publication event")
    manifest: HandoffManifest | None = omittable("the split manifest, for a freeze event")

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
    """distinct workflow groups (MOD, ANI, ...) each split must cover"""
    min_professions_per_split: Count = 0
    """distinct professions each split must cover"""
    min_sources: Count = 0
    """distinct provenance sources (lineage families) over all splits; each split needs its share,
    in proportion to its target"""


class DatasetBand(Contract):
    """A split's difficulty band (docs/datasets.md "Difficulty bands"), measured by campaigns'
    difficulty records; each names a config of the solver registry (contracts/solver_configs.json)."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})

    solved_by: Text | None = omittable(
        "a config that must solve the task at least once in its k attempts (e.g. oracle: the task is solvable)"
    )
    not_always_solved_by: Text | None = omittable(
        "a config that must fail at least one of its scored attempts (e.g. nop: the task is not trivial)"
    )

    _absent_not_null = field_validator("solved_by", "not_always_solved_by")(classmethod(_not_null))

    @model_validator(mode="after")
    def _something(self) -> DatasetBand:
        if self.solved_by is None and self.not_always_solved_by is None:
            raise ValueError("a band names solved_by, not_always_solved_by or both")
        return self


class DatasetSpec(Contract):
    """What DatasetProduction makes: a dataset revision from many seeds, and how `freeze` splits
    it. Stored as datasets/<namespace>/<revision>/dataset.json; a revision's spec never changes."""

    namespace: Slug
    """the dataset's name"""
    revision: Name
    """this revision of it; a frozen revision is immutable, so changes need a new one"""
    seeds: Annotated[list[SeedPath], Field(min_length=1), UniqueItems()] | SeedFolder
    """seed folders (relative to the workers' project root, or absolute), or {"folder": ...}:
    every sub-folder holding a seed.json"""
    splits: Annotated[dict[Slug, Positive], Field(min_length=1)]
    """split name -> number of tasks it must hold (its minimum and its target)"""
    max_per_source: Positive
    """at most this many tasks from one provenance source (counted by lineage family: a derived
    task counts with its root's source)"""
    coverage: DatasetCoverage = Field(default_factory=DatasetCoverage)
    selection_seed: Count = 0
    """the seed value of the deterministic balanced selection"""
    concurrency: Annotated[int, Field(ge=1, le=64), BeforeValidator(_integral)] = 4
    """TaskProductions running at once"""
    options: dict[str, Any] | None = omittable(
        "production options passed to every TaskProduction (see ProductionOptions)"
    )
    stop_when_ready: bool | None = omittable(
        "start no new seed once `freeze-check` passes (the seeds not started are deferred, and "
        "a run without it produces them); absent means false"
    )
    bands: dict[Slug, DatasetBand] | None = omittable(
        "split name -> the difficulty band every task of that split must meet to freeze"
    )
    family_instances: Count | None = omittable(
        "instances of each seed family produced besides its root: the first N of `arkevo seed "
        "expand` (a family's `count` at most); absent means 0, the roots alone"
    )

    _absent_not_null = field_validator("options", "stop_when_ready", "bands",
                                       "family_instances")(classmethod(_not_null))

    @field_validator("bands")
    @classmethod
    def _bands_name_splits(cls, bands: dict[str, DatasetBand], info: ValidationInfo) -> dict[str, DatasetBand]:
        splits = info.data.get("splits") or {}
        unknown = sorted(set(bands) - set(splits))
        if unknown:
            raise ValueError(f"{', '.join(unknown)}: not a split of this spec ({', '.join(sorted(splits))})")
        return bands


class SplitEntry(Contract):
    task_id: Slug
    task_version: Text
    publication_id: Name
    publication_sha256: Sha256
    """sha256 of the publication's publication.json"""
    source: Text
    """the seed's provenance source"""
    workflow_group: GroupId
    profession: ProfessionId
    lineage_root: Text | None = omittable("the task's lineage root seed (absent in manifests frozen before lineage)")
    lineage_family: Text | None = omittable("the task's lineage family: the split key")
    lineage_split: Slug | None = omittable("the split the task's lineage is pinned to, when it is")

    _absent_not_null = field_validator("lineage_root", "lineage_family", "lineage_split")(classmethod(_not_null))


class SplitManifest(Contract):
    """datasets/<namespace>/<revision>/freeze/split-manifest.json: the frozen splits of a dataset
    revision. Written once; its sha256 is announced by a freeze handoff event. It holds no wall
    time and no chain order (those are the freeze event's), so the same seeds and code freeze
    the same bytes."""

    namespace: Slug
    revision: Name
    selection_seed: Count
    spec_sha256: Sha256
    """sha256 of the revision's dataset.json"""
    semantic_digest: Sha256
    """sha256 of the canonical JSON of {split: sorted [task_id, task_version] pairs}"""
    splits: Annotated[dict[Slug, list[SplitEntry]], Field(min_length=1)]


class Retraction(Contract):
    """datasets/<namespace>/<revision>/retractions/<sequence>.json: a published task taken back
    (`arkevo dataset retract`). Create-only and hash-chained like the publication chain: the
    publication stays, marked; freezes, campaigns and exports leave the task out and say so."""

    sequence: Positive
    namespace: Slug
    revision: Name
    task_id: Slug
    publication_id: Name
    """the task's latest committed publication in the revision when it was retracted"""
    publication_sha256: Sha256
    """sha256 of that publication's publication.json, as its chain link records it"""
    reason: Text
    by: Text
    """who retracted it"""
    at: Timestamp
    previous_retraction_sha256: Sha256 | None
    """sha256 of retraction sequence-1's bytes; null for the first"""


# --- privacy policy ---------------------------------------------------------------------------


class PrivacyRule(Contract):
    """One rule of a privacy policy: a regular expression, what kind of problem its match is,
    and optionally a check of the match (`validator`) and exceptions (`allow`)."""

    id: Slug
    kind: Literal["forbidden", "secret", "personal"]
    """forbidden: markings, internal hosts and addresses; secret: keys, tokens, passwords; personal: data about a person"""
    description: Text
    pattern: Text
    """a Python regular expression (flags inline, e.g. (?i)); a named group 'value' is what the validator checks"""
    validator: Literal["luhn", "prc_id", "e164", "token_like"] | None = omittable(
        "a check on the match beyond the pattern: luhn (payment card check digit), prc_id (GB 11643 "
        "check digit), e164 (8 to 15 digits), token_like (letters and digits, not an identifier path)"
    )
    allow: list[Text] | None = omittable(
        "Python regular expressions; a match that any of them finds (re.search on the matched text) "
        "is not a finding"
    )

    _absent_not_null = field_validator("validator", "allow", mode="before")(classmethod(_not_null))


class PrivacyPolicy(Contract):
    """contracts/privacy/<policy_id>@<policy_version>.json: what a seed's or task's
    sanitization_policy names. Regular-expression rules (forbidden markings and hosts, secret
    and key formats, personal data) checked on every file at admission, dispatch and export,
    and the licences a seed's provenance may carry (docs/privacy.md)."""

    policy_id: Name
    policy_version: Version
    title: Text
    description: Text | None = omittable("what the policy is for")
    rules: Annotated[list[PrivacyRule], Field(min_length=1)]
    """checked in order on every line of text (and every text a binary's metadata holds); rule ids are unique"""
    allowed_licences: Annotated[list[Name], Field(min_length=1), UniqueItems()]
    """SPDX licence ids a seed's provenance.license may name"""

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


# --- difficulty records -----------------------------------------------------------------------


class DifficultyInterval(Contract):
    method: Literal["wilson"]
    """the Wilson score interval of a binomial proportion"""
    confidence: Annotated[float, Field(gt=0, lt=1)]
    low: UnitInterval
    high: UnitInterval


class DifficultyConfig(Contract):
    """One config's attempts at one task, as the campaign's records stand."""

    config_id: Text
    kind: ConfigKind
    label: Text
    """'scripted policy — not a model result' for scripted configs"""
    k: Positive
    """attempts the plan ran per task"""
    recorded: Count
    scored: Count
    """recorded attempts that were graded (infrastructure exceptions are not scored, never a 0)"""
    solved: Count
    """scored attempts that passed"""
    infra_exceptions: Count
    solve_rate: UnitInterval | None
    """solved / scored; null when nothing was scored"""
    interval: DifficultyInterval | None
    """95 % interval of the solve rate; null when nothing was scored"""


class DifficultyTask(Contract):
    task_id: Slug
    task_version: Text
    publication_id: Text
    publication_sha256: Sha256
    verifier_version: Text
    """the verifier every counted attempt was graded by: counts pool only within one version"""
    configs: list[DifficultyConfig]


class DifficultyRecord(Contract):
    """datasets/<namespace>/<revision>/difficulty/<campaign_id>.json: how often each config
    solved each task in one campaign over the revision, rewritten with the campaign's report
    (after a recovery: the recovered set). Freeze-check reads them for the spec's bands."""

    campaign_id: CampaignId
    namespace: Text
    revision: Text
    target: Literal["split", "candidates"]
    split: Text | None
    plan_sha256: Sha256
    """sha256 of the campaign's evaluation-plan.json"""
    recovery_round: Positive | None
    """the recovery round whose set these counts come from; null: the original run"""
    tasks: list[DifficultyTask]
