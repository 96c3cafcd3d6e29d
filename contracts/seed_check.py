"""Read-only check of a whole seed folder, before anything is admitted into the store.

Seeds are written outside the project, by people who will not read our code, so every problem
is a `ContractError` naming the file and the field to fix. The check stops at the first
problem: a broken seed is handed back to its author, not repaired. It covers what one document
cannot check on its own: references to the taxonomy, agreement between seed.json and
draft/task.json, files that exist and stay inside the seed, criterion weights, the rubric
matching the rule criteria, its params fitting the probe library (the built-ins and the seed's
own `draft/task_probes.py`, read statically: the seed's code never runs here), and every graded
requirement being discoverable by the solver.

The probe library lives above contracts/: `check_seed_dir` takes it as `probe_methods` (a
`ProbeMethods`); `verifiers.seed_check.check_seed_dir` is this check with the library bound.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any, Protocol, cast

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from contracts.models import Rubric, SeedManifest, Task, Taxonomy
from contracts.validation import ROOT, ContractError, format_path, read_json

TASK_PROBES = "task_probes.py"  # a draft's own probe methods (draft/task_probes.py)

TAXONOMY_PATH = Path(__file__).resolve().parent / "taxonomy.json"
WEIGHT_TOLERANCE = 1e-6
REFERENCE_SUFFIXES = frozenset({".blend", ".py"})
CHANNELS = ("rule", "vl")


class Method(Protocol):
    """A rubric method as the probe catalogue describes it (`verifiers.probe_catalogue.Method`)."""

    @property
    def name(self) -> str: ...

    @property
    def params(self) -> dict[str, Any]: ...

    def schema(self) -> dict[str, Any]: ...


class ProbeMethods(Protocol):
    """The methods a rubric may name: the built-ins, plus a draft's own file when given
    (`verifiers.probe_catalogue.rule_methods`)."""

    def __call__(self, task_probes: Path | None = None, source: str | None = None) -> Mapping[str, Method]: ...


@dataclass(frozen=True)
class CheckedSeed:
    """A seed folder that passed `check_seed_dir`. Paths are relative POSIX paths from the
    seed folder (`materials/brief.md`, `draft/task.json`), so they can travel in payloads."""

    seed_dir: Path
    manifest: SeedManifest
    task: Task | None
    rubric: Rubric | None
    material_paths: tuple[str, ...]
    draft_files: tuple[str, ...]

    @property
    def reference_project(self) -> str:
        return self.manifest.reference_project.path


def check_taxonomy(taxonomy: Taxonomy, source: str = str(TAXONOMY_PATH)) -> None:
    """Referential integrity the schema cannot express: unique ids, workflow ids prefixed by
    their group, and every workflow's group and professions defined."""
    for section in ("professions", "groups", "workflows"):
        seen: set[str] = set()
        for index, item in enumerate(getattr(taxonomy, section)):
            if item.id in seen:
                raise ContractError(source, f"{section}[{index}].id", f"duplicate id {item.id!r}")
            seen.add(item.id)
    groups = {group.id for group in taxonomy.groups}
    professions = taxonomy.profession_ids()
    for index, workflow in enumerate(taxonomy.workflows):
        where = f"workflows[{index}]"
        if workflow.group not in groups:
            raise ContractError(source, f"{where}.group", f"unknown group {workflow.group!r}")
        if not workflow.id.startswith(f"{workflow.group}-"):
            reason = f"{workflow.id!r} does not start with its group {workflow.group!r}"
            raise ContractError(source, f"{where}.id", reason)
        for p_index, profession in enumerate(workflow.professions):
            if profession not in professions:
                reason = f"unknown profession {profession!r}"
                raise ContractError(source, f"{where}.professions[{p_index}]", reason)


@cache
def load_taxonomy() -> Taxonomy:
    """`contracts/taxonomy.json`, schema-valid and referentially intact (cached)."""
    taxonomy = cast(Taxonomy, read_json(TAXONOMY_PATH, "taxonomy"))
    check_taxonomy(taxonomy)
    return taxonomy


def _inside(base: Path, relpath: str, source: str, field: str, what: str) -> Path:
    """The regular file `base/relpath`, refusing anything that resolves outside `base`.

    The schemas already refuse absolute and '..' paths; resolving catches symlinks that lead
    out of the folder, which would smuggle outside files into a task."""
    target = (base / PurePosixPath(relpath)).resolve()
    if not target.is_relative_to(base.resolve()):
        raise ContractError(source, field, f"{relpath!r} resolves outside {what} ({target})")
    if not target.exists():
        raise ContractError(source, field, f"{relpath!r} does not exist in {what}")
    if not target.is_file():
        raise ContractError(source, field, f"{relpath!r} is not a regular file")
    return target


def _check_taxonomy_refs(doc: SeedManifest | Task, taxonomy: Taxonomy, source: str) -> None:
    if doc.workflow_primary not in taxonomy.workflow_ids():
        reason = f"{doc.workflow_primary!r} is not a workflow of the taxonomy"
        raise ContractError(source, "workflow_primary", reason)
    if doc.profession_primary not in taxonomy.profession_ids():
        reason = f"{doc.profession_primary!r} is not a profession of the taxonomy"
        raise ContractError(source, "profession_primary", reason)


def _check_materials(seed: SeedManifest, seed_dir: Path, source: str) -> tuple[str, ...]:
    seen: set[str] = set()
    for index, material in enumerate(seed.materials):
        field = f"materials[{index}].path"
        if material.path in seen:
            raise ContractError(source, field, f"{material.path!r} is listed twice")
        seen.add(material.path)
        _inside(seed_dir, material.path, source, field, "the seed folder")
        suffix = PurePosixPath(material.path).suffix.lower()
        if material.role == "reference_project" and suffix not in REFERENCE_SUFFIXES:
            reason = f"{material.path!r}: a reference project is a .blend or a .py build script"
            raise ContractError(source, field, reason)
    return tuple(material.path for material in seed.materials)


def _check_agreement(seed: SeedManifest, task: Task, source: str) -> None:
    """The task must describe the seed it was drafted from."""
    for name in ("start_mode", "software", "workflow_primary", "profession_primary"):
        ours, theirs = getattr(task, name), getattr(seed, name)
        if ours != theirs:
            if name == "software":
                ours, theirs = ours.model_dump(), theirs.model_dump()
            reason = f"{ours!r} disagrees with seed.json {name} {theirs!r}"
            raise ContractError(source, name, reason)


def _check_criteria(task: Task, source: str) -> None:
    ids: set[str] = set()
    for index, criterion in enumerate(task.criteria):
        if criterion.id in ids:
            raise ContractError(source, f"criteria[{index}].id", f"duplicate id {criterion.id!r}")
        ids.add(criterion.id)
    for channel in CHANNELS:
        channel_weights = [c.weight for c in task.criteria if c.channel == channel]
        if channel_weights and abs(math.fsum(channel_weights) - 1) > WEIGHT_TOLERANCE:
            reason = f"the {channel} criteria weights sum to {math.fsum(channel_weights):g}, not 1"
            raise ContractError(source, "criteria", reason)
    # The reward is weights.rule * rule_score + weights.vl * vl_score, and lies in [0, 1] only
    # if the channel weights sum to 1; a weighted channel without criteria never has a score,
    # so every reward of the task would be null.
    weights = task.verification.weights
    total = math.fsum([weights.rule, weights.vl])
    if abs(total - 1) > WEIGHT_TOLERANCE:
        reason = f"rule + vl weights sum to {total:g}, not 1"
        raise ContractError(source, "verification.weights", reason)
    for channel in CHANNELS:
        if getattr(weights, channel) > 0 and not any(c.channel == channel for c in task.criteria):
            reason = f"the {channel} channel has weight > 0 but no criteria"
            raise ContractError(source, f"verification.weights.{channel}", reason)


def _check_rubric(task: Task, rubric: Rubric, source: str, task_source: str) -> None:
    """The rubric parametrises exactly the rule criteria, with the same methods."""
    rule = {c.id: c for c in task.criteria if c.channel == "rule"}
    seen: set[str] = set()
    for index, entry in enumerate(rubric.criteria):
        field = f"criteria[{index}]"
        if entry.id in seen:
            raise ContractError(source, f"{field}.id", f"duplicate id {entry.id!r}")
        seen.add(entry.id)
        if entry.id not in rule:
            reason = f"{entry.id!r} is not a rule criterion of {task_source}"
            raise ContractError(source, f"{field}.id", reason)
        if entry.method != rule[entry.id].method:
            reason = f"{entry.method!r} differs from the task's method {rule[entry.id].method!r}"
            raise ContractError(source, f"{field}.method", reason)
    missing = [criterion_id for criterion_id in rule if criterion_id not in seen]
    if missing:
        raise ContractError(source, "criteria", f"no entry for rule criteria {missing}")


def _probe_methods(draft: Path, rule_methods: ProbeMethods) -> Mapping[str, Method]:
    """The methods a rubric may name: built-ins, plus the seed's `draft/task_probes.py` (parsed,
    never run), which must stay inside draft/ like every other draft file."""
    path = draft / TASK_PROBES
    if not (path.exists() or path.is_symlink()):
        return rule_methods()
    _inside(draft, TASK_PROBES, str(path), ROOT, "draft/")
    return rule_methods(path, str(path))


def _json_text(value: object, limit: int = 80) -> str:
    text = json.dumps(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _param_problem(method: Method, params: dict[str, object]) -> tuple[list[str | int], str] | None:
    """(path under params, reason) of the first problem: a missing required param, then an
    unknown one, then a wrong type or shape in the rubric's order of params."""
    errors = list(Draft202012Validator(method.schema()).iter_errors(params))
    if not errors:
        return None
    order = list(params)

    def rank(error: ValidationError) -> tuple[int, int]:
        if error.absolute_path:
            return 3, order.index(error.absolute_path[0])
        return {"required": 0, "anyOf": 1, "additionalProperties": 2}.get(str(error.validator), 3), 0

    error = min(errors, key=rank)
    path = list(error.absolute_path)
    if not path and error.validator == "required":
        name = next(n for n in error.validator_value if error.message == f"{n!r} is a required property")
        return [name], "missing required param"
    if not path and error.validator == "anyOf":
        names = [n for alt in error.validator_value for n in alt["required"]]
        return [], f"missing required param: one of {', '.join(map(repr, names))}"
    if not path and error.validator == "additionalProperties":
        extra = next(k for k in params if k not in method.params)
        return [extra], f"unknown param; {method.name} takes {', '.join(sorted(method.params))}"
    schema = error.schema if isinstance(error.schema, dict) else {}
    wanted = schema.get("description")
    if wanted is None and error.validator == "type":
        wanted = " or ".join([error.validator_value] if isinstance(error.validator_value, str)
                             else error.validator_value)
    if wanted is None:
        return path, error.message
    return path, f"expected {wanted}, got {_json_text(error.instance)}"


def _check_params(rubric: Rubric, methods: Mapping[str, Method], source: str) -> None:
    """Each rubric entry names a known method and gives it params of the declared types, so a
    broken rubric is refused here rather than failing inside a trial."""
    for index, entry in enumerate(rubric.criteria):
        method = methods.get(entry.method)
        if method is None:
            reason = f"{entry.id}: unknown probe method {entry.method!r}: neither a built-in nor in draft/{TASK_PROBES}"
            raise ContractError(source, format_path(["criteria", index, "method"]), reason)
        problem = _param_problem(method, entry.params)
        if problem is not None:
            path, reason = problem
            field = format_path(["criteria", index, "params", *path])
            raise ContractError(source, field, f"{entry.id} ({entry.method}): {reason}")


def _check_requirements(task: Task, texts: Iterable[str], source: str) -> None:
    """Every graded requirement must be discoverable by the solver: its id appears as a whole
    token in the instruction or a public attachment."""
    corpus = "\n".join(texts)
    for index, criterion in enumerate(task.criteria):
        token = re.compile(rf"(?<![\w.-]){re.escape(criterion.requirement_id)}(?![\w-])")
        if not token.search(corpus):
            reason = (
                f"{criterion.requirement_id!r} appears neither in {task.instruction} "
                "nor in any public attachment"
            )
            raise ContractError(source, f"criteria[{index}].requirement_id", reason)


SCAFFOLD_MARKER = "ARKEVO-TODO:"  # what `arkevo seed new` leaves where the author must write
SCAFFOLD_SUFFIXES = (".json", ".md", ".py")  # the only kinds of file it writes markers into


def scaffold_markers(seed_dir: Path) -> list[tuple[str, int, str]]:
    """(file relative to the seed, line, what to write) of every scaffold marker left in the
    seed's documents and scripts (a .blend or an image material is never read here): a seed
    still holding one is not finished, whatever else holds."""
    seed_dir = Path(seed_dir)
    found = []
    for path in sorted(p for p in seed_dir.rglob("*") if p.is_file() and p.suffix in SCAFFOLD_SUFFIXES
                       and "__pycache__" not in p.parts):
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):  # not text after all: nothing an author types
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if SCAFFOLD_MARKER in line:
                what = line.split(SCAFFOLD_MARKER, 1)[1].strip().rstrip('",').strip()
                found.append((path.relative_to(seed_dir).as_posix(), number, what))
    return found


def _draft_files(seed_dir: Path, draft: Path) -> tuple[str, ...]:
    files = []
    for path in sorted(draft.rglob("*")):
        relpath = path.relative_to(seed_dir).as_posix()
        if "__pycache__" in path.relative_to(draft).parts:
            continue
        if path.is_symlink() and not path.resolve().is_relative_to(seed_dir.resolve()):
            reason = f"symlink resolves outside the seed folder ({path.resolve()})"
            raise ContractError(str(seed_dir / relpath), ROOT, reason)
        if path.is_file():
            files.append(relpath)
    return tuple(files)


def _check_attachment_names(task: Task, source: str) -> None:
    """Public attachments land in the solver's workspace as `inputs/<file name>`, beside
    `inputs/start.blend`: two with one file name (in different folders), or one named
    start.blend, would overwrite the other."""
    seen: dict[str, int] = {"start.blend": -1}
    for index, relpath in enumerate(task.public_attachments):
        name = relpath.rsplit("/", 1)[-1]
        if name in seen:
            clash = "the start scene, inputs/start.blend" if seen[name] < 0 else \
                f"public_attachments[{seen[name]}] ({task.public_attachments[seen[name]]})"
            raise ContractError(source, format_path(["public_attachments", index]),
                                f"{relpath!r} lands in the workspace as inputs/{name}, as does {clash}; "
                                "give each attachment its own file name")
        seen[name] = index


def check_seed_dir(seed_dir: Path, taxonomy: Taxonomy | None = None, *, probe_methods: ProbeMethods,
                   authored: bool = False) -> CheckedSeed:
    """Validate a seed folder without writing to it; raise `ContractError` on the first
    problem. `taxonomy` defaults to the project's `contracts/taxonomy.json`. `probe_methods`:
    the probe library the rubric is checked against. `authored`: the folder holds a draft the
    author model wrote, which is checked whatever seed.json says."""
    seed_dir = Path(seed_dir)
    if not seed_dir.is_dir():
        raise ContractError(str(seed_dir), ROOT, "not a seed folder (no such directory)")
    if taxonomy is None:
        taxonomy = load_taxonomy()

    seed_source = str(seed_dir / "seed.json")
    seed = cast(SeedManifest, read_json(seed_dir / "seed.json", "seed"))
    _check_taxonomy_refs(seed, taxonomy, seed_source)
    materials = _check_materials(seed, seed_dir, seed_source)

    draft = seed_dir / "draft"
    if authored and not draft.is_dir():
        raise ContractError(str(draft), ROOT, "no draft was written")
    if not authored and (not draft.is_dir() or seed.authoring == "model"):
        return CheckedSeed(seed_dir, seed, None, None, materials, ())  # the model writes it
    if not draft.resolve().is_relative_to(seed_dir.resolve()):
        reason = f"symlink resolves outside the seed folder ({draft.resolve()})"
        raise ContractError(str(draft), ROOT, reason)

    task_source = str(draft / "task.json")
    rubric_source = str(draft / "rubric.json")
    task = cast(Task, read_json(draft / "task.json", "task"))
    rubric = cast(Rubric, read_json(draft / "rubric.json", "rubric"))
    _check_taxonomy_refs(task, taxonomy, task_source)  # before agreement: the clearer error
    _check_agreement(seed, task, task_source)
    instruction = _inside(draft, task.instruction, task_source, "instruction", "draft/")
    attachments = [
        _inside(draft, relpath, task_source, format_path(["public_attachments", index]), "draft/")
        for index, relpath in enumerate(task.public_attachments)
    ]
    _check_attachment_names(task, task_source)
    _check_criteria(task, task_source)
    _check_rubric(task, rubric, rubric_source, task_source)
    _check_params(rubric, _probe_methods(draft, probe_methods), rubric_source)
    texts = [path.read_bytes().decode("utf-8", "replace") for path in [instruction, *attachments]]
    _check_requirements(task, texts, task_source)
    return CheckedSeed(seed_dir, seed, task, rubric, materials, _draft_files(seed_dir, draft))
