"""Task derivation: read an existing Harbor task, ask the deriver for its transferable pattern
and for new, independent seeds, and turn each proposed seed into a seed folder's files.

The deriver is the author role's model (contracts/model_roles.json) in its own context. What it
proposes is checked here, never trusted: a candidate's seed.json goes through the seed schema
and the taxonomy, its build script must at least parse (it is outside code: stored, never run
in the worker; it runs later in the build sandbox), and its checks must name probe methods and
params that exist.
"""

from __future__ import annotations

import ast
import hashlib
import json
import tempfile
import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from contracts.lineage import META_FAMILY, META_ROOT, META_SPLIT, resolve as resolve_lineage
from verifiers.seed_check import check_seed_dir
from contracts.validation import ContractError, build_document
from drafting.model_client import parse_json_reply
from verifiers.probe_catalogue import rule_methods

ROLE_MARKER = "ARKEVO-ROLE: deriver"
PUBLIC_SUFFIXES = (".md", ".txt", ".json")
DEFAULT_LICENSE = "CC0-1.0"
COLLECTED_BY = "arkevo TaskDerivation"
SANITIZATION = {"policy_id": "rl-task-basic-sanitization", "policy_version": "0.1.1"}
MATERIALS = [{"path": "materials/build_reference.py", "role": "reference_project", "public": False},
             {"path": "materials/brief.md", "role": "requirement_doc", "public": True}]


class SourceTaskError(ValueError):
    """A source folder that is not a readable Harbor task; the message names path and file."""


def read_task_dir(path: Path) -> dict:
    """The summary of a Harbor task folder: instruction, task.toml, tests/task.json and
    tests/rubric.json (when present) and the public attachments the solver gets."""
    path = Path(path)
    if not path.is_dir():
        raise SourceTaskError(f"{path}: not a Harbor task folder (no such directory)")
    instruction = path / "instruction.md"
    if not instruction.is_file():
        raise SourceTaskError(f"{path}: instruction.md is missing")

    def load(rel: str, parse):
        file = path / rel
        if not file.is_file():
            return None
        try:
            return parse(file.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise SourceTaskError(f"{path}: {rel} is unreadable: {exc}") from None

    inputs = path / "environment" / "workspace" / "inputs"
    public = {p.relative_to(inputs).as_posix(): p.read_text(encoding="utf-8", errors="replace")
              for p in sorted(inputs.rglob("*")) if p.is_file() and p.suffix in PUBLIC_SUFFIXES
              } if inputs.is_dir() else {}
    task = load("tests/task.json", json.loads)
    toml = load("task.toml", tomllib.loads) or {}
    return {
        "source": str(path),
        "source_id": (task or {}).get("task_id") or path.name,
        "instruction": instruction.read_text(encoding="utf-8", errors="replace"),
        "task_toml": toml,
        "task": task,
        "rubric": load("tests/rubric.json", json.loads),
        "public": public,
        "license": toml.get("metadata", {}).get("license") or DEFAULT_LICENSE,
    }


def source_lineage(path: Path, summary: dict) -> tuple[dict, dict]:
    """(the source task's lineage, its entry as the parent of a derived seed).

    The lineage is the publication's admission record's (`<publication>/admission/`, beside
    `task/`), else task.toml's [metadata] (`lineage_root`, `lineage_family`), else the task is
    its own root: a foreign Harbor task's family is its Harbor name (task.toml [task] name) or
    its id. The parent names the task's id and version and, for a publication, the sha256 of
    its publication.json and the dataset revision it names."""
    path = Path(path)
    meta = summary["task_toml"].get("metadata") or {}
    # task.toml's identity first: it is what dataset revisions list (tests/task.json's id is
    # the draft's, the same for this project's own publications)
    parent: dict = {"task_id": meta.get("task_id") or summary["source_id"],
                    "task_version": meta.get("task_version")}
    publication = path.parent / "publication.json"
    if publication.is_file():
        data = publication.read_bytes()
        try:
            dataset = json.loads(data).get("dataset") or {}
        except ValueError as exc:
            raise SourceTaskError(f"{path}: ../publication.json is unreadable: {exc}") from None
        parent |= {"publication_sha256": hashlib.sha256(data).hexdigest(),
                   "namespace": dataset.get("namespace"), "revision": dataset.get("revision")}
    record = path.parent / "admission" / "admission-record.json"
    if record.is_file():
        try:
            doc = json.loads(record.read_text(encoding="utf-8"))
            return doc.get("lineage") or resolve_lineage(doc["seed_id"], doc["provenance"]), parent
        except (ValueError, KeyError) as exc:
            raise SourceTaskError(f"{path}: ../admission/admission-record.json is unreadable: {exc!r}") from None
    if meta.get(META_ROOT) and meta.get(META_FAMILY):
        own = {"root_seed": meta[META_ROOT], "family": meta[META_FAMILY], "derived_from": []}
        return own | ({"split": meta[META_SPLIT]} if meta.get(META_SPLIT) else {}), parent
    name = (summary["task_toml"].get("task") or {}).get("name") or summary["source_id"]
    return {"root_seed": parent["task_id"], "family": name, "derived_from": []}, parent


def _catalogue() -> str:
    return "\n".join(f"- {name}({', '.join(m.params)})" for name, m in sorted(rule_methods().items()))


def _source_text(summary: dict) -> str:
    parts = [f"source_id: {summary['source_id']}", "", "## instruction.md", summary["instruction"]]
    for rel, text in summary["public"].items():
        parts += ["", f"## inputs/{rel} (public attachment)", text]
    for name in ("task", "rubric"):
        if summary.get(name):
            parts += ["", f"## tests/{name}.json", json.dumps(summary[name], indent=1)]
    return "\n".join(parts)


def pattern_messages(summary: dict) -> list[dict]:
    system = f"""{ROLE_MARKER}
You study an existing Blender task (a client's request graded by measuring the delivered
.blend file) and name what transfers to new tasks. Reply with one JSON object only:
{{"skill": "<the Blender skill exercised>", "deliverable": "<what kind of file/scene is delivered>",
  "check_kinds": ["<probe method used>", ...], "varies": ["<what a new task could change>", ...],
  "keeps": ["<what makes the task gradable and must stay>", ...]}}"""
    return [{"role": "system", "content": system},
            {"role": "user", "content": _source_text(summary) + "\n\nName the transferable pattern."}]


def parse_pattern(text: str | None) -> dict:
    pattern = parse_json_reply(text)
    if not isinstance(pattern, dict) or not pattern.get("skill"):
        raise ValueError("the pattern must be a JSON object with at least a non-empty \"skill\"")
    return pattern


def candidate_messages(summary: dict, pattern: dict, k: int) -> list[dict]:
    system = f"""{ROLE_MARKER}
You write new Blender task seeds that follow a given pattern but are independent tasks: a
different object or product, different numbers and names, its own wording. Never copy the
source's text, numbers or part names. Reply with one JSON object only:
{{"candidates": [{{
  "seed_id": "<lowercase slug, 2-63 chars: letters, digits, '-'>",
  "title": "<one line>",
  "workflow_primary": "<taxonomy workflow id, e.g. MOD-01>",
  "profession_primary": "<taxonomy profession id, e.g. PRF-3DART>",
  "start_mode": "from_scratch | continue | refine | repair",
  "brief": "<markdown: the client's requirement document with every number and name to meet>",
  "build_reference": "<a bpy Python script that builds the reference scene>",
  "requirements": [{{"id": "REQ-...", "check": "<probe method>", "params": ["<param name>", ...]}}]
}}]}}
Probe methods and their params:
{_catalogue()}"""
    user = (f"{_source_text(summary)}\n\n## pattern\n{json.dumps(pattern, indent=1)}\n\n"
            f"Write {k} new, independent seeds following the pattern.")
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def parse_candidates(text: str | None) -> list:
    reply = parse_json_reply(text)
    if not isinstance(reply, dict) or not isinstance(reply.get("candidates"), list):
        raise ValueError('the reply must be a JSON object {"candidates": [...]}')
    return reply["candidates"]


class _Requirement(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^REQ-[A-Z0-9-]+$")
    check: str
    params: list[str] = []


class _Candidate(BaseModel):
    model_config = ConfigDict(extra="ignore")
    seed_id: str
    title: str
    workflow_primary: str
    profession_primary: str
    start_mode: str
    brief: str = Field(min_length=1)
    build_reference: str = Field(min_length=1)
    requirements: list[_Requirement] = Field(min_length=1)


def build_candidate(raw: object, *, source_id: str, source_sha256: str,
                    software: dict, license: str, lineage: dict | None = None) -> tuple[dict[str, str], dict]:
    """(files of the seed folder, plan) of one proposed seed; ValueError names what is wrong.
    `lineage`: the seed's declared lineage (its source's root and family, the source appended
    to `derived_from`): the split key it keeps through authoring into the dataset."""
    try:
        cand = _Candidate.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        raise ValueError(f"{'.'.join(map(str, first['loc'])) or 'candidate'}: {first['msg']}") from None
    try:
        ast.parse(cand.build_reference, "materials/build_reference.py")
    except SyntaxError as exc:
        raise ValueError(f"materials/build_reference.py is not valid Python: line {exc.lineno}: "
                         f"{exc.msg}") from None
    methods = rule_methods()
    for req in cand.requirements:
        if req.check not in methods:
            raise ValueError(f"{req.id}: unknown probe method {req.check!r}")
        if unknown := sorted(set(req.params) - set(methods[req.check].params)):
            raise ValueError(f"{req.id}: {req.check} takes no params {unknown}")
    seed = {
        "seed_id": cand.seed_id, "title": cand.title, "software": software,
        "start_mode": cand.start_mode, "workflow_primary": cand.workflow_primary,
        "profession_primary": cand.profession_primary,
        "provenance": {"source": f"derived from {source_id} ({source_sha256}) by {COLLECTED_BY}",
                       "license": license, "collected_by": COLLECTED_BY,
                       **({"lineage": lineage} if lineage else {})},
        "materials": MATERIALS, "sanitization_policy": SANITIZATION, "authoring": "model",
    }
    try:
        seed = build_document("seed", seed, f"{cand.seed_id}/seed.json")
    except ContractError as exc:
        raise ValueError(str(exc)) from None
    files = {"seed.json": json.dumps(seed, indent=2) + "\n", "materials/brief.md": cand.brief,
             "materials/build_reference.py": cand.build_reference}
    check_files(files)
    return files, {"requirements": [r.model_dump() for r in cand.requirements]}


def check_files(files: dict[str, str]) -> None:
    """The whole-folder seed check (taxonomy, materials) on the files written to a temp dir."""
    with tempfile.TemporaryDirectory(prefix="arkevo-candidate-") as tmp:
        for rel, text in files.items():
            (Path(tmp) / rel).parent.mkdir(parents=True, exist_ok=True)
            (Path(tmp) / rel).write_text(text, encoding="utf-8")
        try:
            check_seed_dir(Path(tmp))
        except ContractError as exc:
            raise ValueError(str(exc).replace(tmp + "/", "")) from None
