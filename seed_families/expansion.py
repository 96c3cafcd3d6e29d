"""An instance of a seed family as files, and the checks of a family's root.

A family root is a seed folder like any other, written at its parameters' defaults, plus
`family/`: Jinja2 templates at the paths of the files that change with the parameters
(`family/draft/rubric.json` renders over `draft/rubric.json`). Instance k is every file of the
root except `family/`, with the templates rendered over it with instance k's values, and a
seed.json (and draft/task.json's `task_id`) naming the instance (`<root>-<k:03d>`), its lineage (the root's family, so instances
never straddle splits) and its values (`provenance.family_instance`). Rendering with the
defaults must give the root's own files back byte for byte: `check_family` says where not.

The templates come from outside (a seed's author), so they render in Jinja2's sandboxed
environment: no attribute of a Python object is reachable from a template, and ranges are
capped. They produce text only; the instance's scripts run later in the build sandbox, as any
seed's do.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import StrictUndefined, Template, TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from contracts import lineage
from contracts.models import SeedFamily
from seed_families.sampling import Value, defaults, sample

TEMPLATES = "family"  # the folder of a root holding the templates
TASK_JSON = "draft/task.json"  # its task_id becomes the instance's id
SKIP_PARTS = {"__pycache__"}


class FamilyError(ValueError):
    """A family root that cannot make its instances: `file` and `field` name where."""

    def __init__(self, file: str, field: str, reason: str):
        super().__init__(f"{file}: {field}: {reason}")
        self.file, self.field, self.reason = file, field, reason


@dataclass(frozen=True)
class Instance:
    seed_id: str
    index: int
    parameters: dict[str, Value]
    files: dict[str, bytes]  # relative path -> content, the instance's seed.json included


def instance_id(root_id: str, index: int) -> str:
    return f"{root_id}-{index:03d}"


def _fixed(value: Any, digits: int = 2) -> str:
    """`{{ width | fixed(2) }}`: a number with exactly `digits` decimals ("1.20")."""
    return f"{float(value):.{int(digits)}f}"


def _environment() -> ImmutableSandboxedEnvironment:
    env = ImmutableSandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=True,
                                        autoescape=False)
    env.filters["fixed"] = _fixed
    return env


def _root_files(root: Path) -> dict[str, Path]:
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if not path.is_file() or rel.parts[0] == TEMPLATES or SKIP_PARTS & set(rel.parts):
            continue
        out[rel.as_posix()] = path
    return out


def templates(root: Path) -> dict[str, Path]:
    """Target path (relative to the root) -> its template under family/."""
    folder = root / TEMPLATES
    if not folder.is_dir():
        return {}
    return {p.relative_to(folder).as_posix(): p for p in sorted(folder.rglob("*"))
            if p.is_file() and not SKIP_PARTS & set(p.relative_to(folder).parts)}


def compile_templates(root: Path) -> dict[str, Template]:
    """Each template of `root`, compiled once (an expansion renders each one per instance)."""
    env = _environment()
    out = {}
    for target, path in templates(root).items():
        rel = f"{TEMPLATES}/{target}"
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as e:
            raise FamilyError(rel, "<file>", f"a template must be UTF-8 text ({e.reason})") from e
        try:
            out[target] = env.from_string(text)
        except TemplateError as e:
            raise FamilyError(rel, _where(e), f"{type(e).__name__}: {e.message or e}") from e
    return out


def _where(e: TemplateError) -> str:
    return f"line {e.lineno}" if getattr(e, "lineno", None) else "<template>"


def render(root: Path | dict[str, Template], values: dict[str, Value], index: int) -> dict[str, bytes]:
    """Each template of `root` (or each of those compiled) rendered with `values` and
    `instance` = index."""
    compiled = compile_templates(root) if isinstance(root, Path) else root
    out = {}
    for target, template in compiled.items():
        try:
            out[target] = template.render(**values, instance=index).encode()
        except TemplateError as e:
            raise FamilyError(f"{TEMPLATES}/{target}", _where(e), f"{type(e).__name__}: {e.message or e}") from e
    return out


def check_family(root: Path, manifest_doc: dict, family: SeedFamily) -> list[FamilyError]:
    """What keeps the root from being its family at the defaults: a template without a root
    file, a template for seed.json (the expansion writes it), a render that fails, or the
    defaults' render differing from the root's file (the first differing line named). Then
    each instance must render. Writes nothing."""
    found: list[FamilyError] = []
    own = _root_files(root)
    targets = templates(root)
    if not targets:
        found.append(FamilyError(f"{TEMPLATES}/", "<folder>", "a family needs templates: the files that change "
                                 "with its parameters, at their paths under family/"))
    for target in targets:
        if target == "seed.json":
            found.append(FamilyError(f"{TEMPLATES}/seed.json", "<file>", "seed.json is written by the expansion "
                                     "(the instance's id, lineage and values): no template for it"))
        elif target not in own:
            found.append(FamilyError(f"{TEMPLATES}/{target}", "<file>", f"the root has no {target} for it to "
                                     "render over (the root is the family at its defaults)"))
    if found:
        return found
    try:
        compiled = compile_templates(root)
        rendered = render(compiled, defaults(family), 0)
    except FamilyError as e:
        return [e]
    for target, data in rendered.items():
        mine = own[target].read_bytes()
        if data != mine:
            line = _first_difference(data, mine)
            found.append(FamilyError(f"{TEMPLATES}/{target}", f"line {line}",
                                     f"rendered with the defaults it differs from {target} at line {line} "
                                     "(the root must be the family at its defaults)"))
    if found:
        return found
    try:
        for k, values in enumerate(sample(family), start=1):
            render(compiled, values, k)
    except FamilyError as e:
        return [e]
    except ValueError as e:  # FamilyTooSmall
        return [FamilyError("seed.json", "family.count", str(e).removeprefix("family.count: "))]
    return found


def _first_difference(a: bytes, b: bytes) -> int:
    la, lb = a.decode(errors="replace").splitlines(), b.decode(errors="replace").splitlines()
    for i, (x, y) in enumerate(zip(la, lb), start=1):
        if x != y:
            return i
    return min(len(la), len(lb)) + 1


def instance_manifest(manifest_doc: dict, root_id: str, index: int, values: dict[str, Value],
                      sampler_seed: int) -> dict:
    """The instance's seed.json: the root's, without `family`, under the instance's id, with the
    root's lineage (its root seed and family: what splits and source caps count) and its values."""
    doc = json.loads(json.dumps(manifest_doc))
    doc.pop("family", None)
    doc["seed_id"] = instance_id(root_id, index)
    shown = ", ".join(f"{k} {v}" for k, v in values.items())
    doc["title"] = f"{manifest_doc['title']} ({shown})"
    prov = doc["provenance"]
    prov["lineage"] = lineage.resolve(root_id, manifest_doc["provenance"])
    prov["family_instance"] = {"root_seed": root_id, "index": index, "sampler_seed": sampler_seed,
                               "parameters": dict(values)}
    return doc


def instances(root: Path, manifest_doc: dict, family: SeedFamily, count: int | None = None) -> list[Instance]:
    """Instances 1..count (default: the family's count) of the family rooted at `root`, in
    order, as bytes: the same root gives the same bytes."""
    root_id = manifest_doc["seed_id"]
    if len(instance_id(root_id, 1)) > 63:
        raise FamilyError("seed.json", "seed_id", f"{root_id!r} is too long for instance ids "
                          "(<seed id>-NNN must fit 63 characters)")
    try:
        chosen = sample(family, count)
    except ValueError as e:
        raise FamilyError("seed.json", "family.count", str(e).removeprefix("family.count: ")) from e
    own = {rel: path.read_bytes() for rel, path in _root_files(root).items()}
    compiled = compile_templates(root)
    out = []
    for k, values in enumerate(chosen, start=1):
        files = dict(own)
        files.update(render(compiled, values, k))
        doc = instance_manifest(manifest_doc, root_id, k, values, family.sampler_seed)
        files["seed.json"] = json.dumps(doc, indent=2, ensure_ascii=False).encode() + b"\n"
        if TASK_JSON in files:  # each instance is a task of its own: its id is the instance's
            files[TASK_JSON] = _renamed_task(files[TASK_JSON], doc["seed_id"])
        out.append(Instance(instance_id(root_id, k), k, values, files))
    return out


def _renamed_task(data: bytes, task_id: str) -> bytes:
    try:
        task = json.loads(data)
    except ValueError as e:
        raise FamilyError(TASK_JSON, "<file>", f"not JSON once rendered: {e}") from e
    if not isinstance(task, dict):
        raise FamilyError(TASK_JSON, "<file>", "not a JSON object once rendered")
    task["task_id"] = task_id
    return json.dumps(task, indent=2, ensure_ascii=False).encode() + b"\n"


def write_instance(instance: Instance, dest: Path) -> None:
    """The instance's files under `dest` (created; must not exist, or be empty)."""
    dest.mkdir(parents=True, exist_ok=True)
    if any(dest.iterdir()):
        raise FileExistsError(f"{dest}: not empty")
    for rel, data in sorted(instance.files.items()):
        path = dest / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
