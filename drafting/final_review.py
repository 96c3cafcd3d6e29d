"""Final review of an authored draft by a separate reviewer model in a fresh context.

The worker measures what it can (`review_facts`): requirement coverage, private values that
reached public text, solution code copied into public text, calibration margins. The reviewer
gets those facts with the draft and the materials, never the authoring history, and answers
four checks with a verdict (`review_messages`, `parse_verdict`).
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from drafting.model_client import parse_json_reply
from drafting.similarity import number_key, numbers_in

ROLE_MARKER = "ARKEVO-ROLE: reviewer"
VERDICTS = ("accept", "revise", "reject")
CHECKS = ("coverage", "leaks", "client_request", "margins", "gaming")
MIN_CODE_LINE = 25  # shorter solution lines (imports, `bm.free()`) are not evidence of copying
_IDENTIFIER = re.compile(r"^[A-Za-z][\w.-]{2,}$")
_REQUIREMENT = re.compile(r"(?<![\w.-])REQ-[A-Z0-9][A-Z0-9-]*(?![\w-])")
_TRIVIAL = {str(n) for n in range(11)}  # small whole numbers are counts, found in every file

SYSTEM_PROMPT = f"""{ROLE_MARKER}
You are the final reviewer of a Blender task draft. You have not seen how it was written; judge
only what you are shown. The worker has measured some facts for you; trust them, and read the
files to judge what cannot be measured. Check four things:
1. coverage: every requirement id (of the ledger and of the public text) is graded by at least
   one criterion of draft/task.json.
2. leaks: no private value (from the solution, the calibration scripts or the private materials)
   appears in the public text (instruction and public attachments) beyond what the spec must
   state because it is graded; no solution code is copied into public text.
3. client_request: the instruction reads as a client's request for the work, not as a
   description of the grader or a walkthrough of the solution.
4. margins: the calibration margin is at least the required margin.
5. gaming: for every requirement of the ledger, the criterion that measures it measures the
   property itself on the evaluated scene (solid parts, the material on the faces and the shader
   that reaches the surface, attachment over the animation, what must stay unchanged) rather than
   a proxy the solver controls (a name, a bounding box, a helper's position), and at least one
   gaming sample (draft/calibration/gaming/) or gaming operator attacks it and fails; the
   measured facts list the gaming samples and the operators the grader did not kill.
Reply with one JSON object only:
{{"verdict": "accept" | "revise" | "reject",
  "reasons": ["<why, one line each; required for revise and reject>"],
  "checks": {{"coverage": {{"ok": true|false, "note": "<short>"}}, "leaks": {{"ok": ..., "note": ...}},
             "client_request": {{"ok": ..., "note": ...}}, "margins": {{"ok": ..., "note": ...}},
             "gaming": {{"ok": ..., "note": ...}}}}}}
accept: all five hold. revise: the author can fix what you name. reject: the task cannot be
made sound from these materials."""


def _shown(path: Path) -> str:
    text = _text(path)
    return text if text is not None else f"(binary, {path.stat().st_size} bytes)"


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def _load(seed_dir: Path, rel: str) -> dict | None:
    path = seed_dir / rel
    return json.loads(path.read_text()) if path.is_file() else None


def _private_values(path: Path, text: str) -> tuple[set[str], set[str]]:
    """(numbers, identifiers) a private file holds: Python constants when it parses, else the
    numbers and quoted names of its text."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return numbers_in(text), set(re.findall(r"[`\"']([A-Za-z][\w.-]{2,})[`\"']", text))
    numbers, names = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool):
            numbers.add(number_key(node.value))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and _IDENTIFIER.match(node.value):
            names.add(node.value)
    return numbers, names


def _graded_values(value, numbers: set[str], names: set[str]) -> None:
    """Every number and string in rubric params: the spec must state them."""
    if isinstance(value, dict):
        for v in value.values():
            _graded_values(v, numbers, names)
    elif isinstance(value, list):
        for v in value:
            _graded_values(v, numbers, names)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        numbers.add(number_key(value))
    elif isinstance(value, str):
        names.add(value)


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", text) is not None


def _coverage(task: dict, ledger: dict | None, public: str) -> dict:
    by_requirement: dict[str, list[str]] = {}
    for criterion in task.get("criteria", []):
        by_requirement.setdefault(criterion["requirement_id"], []).append(criterion["id"])
    ledger_ids = [r["requirement_id"] for r in (ledger or {}).get("requirements", [])]
    criteria = {c["id"] for c in task.get("criteria", [])}
    requirements = sorted(set(by_requirement) | set(ledger_ids) | set(_REQUIREMENT.findall(public)))
    uncovered = [r for r in requirements if r not in by_requirement]
    not_in_ledger = sorted(set(by_requirement) - set(ledger_ids)) if ledger is not None else []
    unknown = sorted({c for r in (ledger or {}).get("requirements", [])
                      for c in r.get("criteria", []) if c not in criteria})
    return {"requirements": requirements, "by_requirement": by_requirement,
            "ledger": ledger is not None, "uncovered": uncovered, "not_in_ledger": not_in_ledger,
            "ledger_unknown_criteria": unknown,
            "complete": not (uncovered or not_in_ledger or unknown)}


def review_facts(seed_dir: Path, calibration_report: dict) -> dict:
    """What the worker measures and shows the reviewer (see the module docstring)."""
    seed_dir = Path(seed_dir)
    seed, task = _load(seed_dir, "seed.json") or {}, _load(seed_dir, "draft/task.json") or {}
    draft = seed_dir / "draft"
    public_paths = [task.get("instruction", "instruction.md"), *task.get("public_attachments", [])]
    public = "\n".join(_text(draft / rel) or "" for rel in public_paths)

    materials = seed.get("materials", [])
    private = _files(draft / "solution") + _files(draft / "calibration")
    private += [seed_dir / m["path"] for m in materials if not m.get("public")]
    numbers, names = set(), set()
    for path in private:
        if path.is_file() and (text := _text(path)) is not None:
            n, i = _private_values(path, text)
            numbers |= n
            names |= i
    allowed_numbers, allowed_names = set(), set()
    for m in materials:
        if m.get("public") and (text := _text(seed_dir / m["path"])) is not None:
            allowed_numbers |= numbers_in(text)
            allowed_names |= {n for n in names if _mentions(text, n)}
    for entry in (_load(seed_dir, "draft/rubric.json") or {}).get("criteria", []):
        _graded_values(entry.get("params", {}), allowed_numbers, allowed_names)
    leaked_numbers = sorted((numbers & numbers_in(public)) - allowed_numbers - _TRIVIAL, key=float)
    leaked_names = sorted(n for n in names - allowed_names if _mentions(public, n))

    solve = _text(draft / "solution" / "solve.py") or ""
    copied = sorted({line.strip() for line in solve.splitlines()
                     if len(line.strip()) >= MIN_CODE_LINE and line.strip() in public})
    keys = ("margin", "required_margin", "min_good", "max_bad", "passed")
    margins = {k: calibration_report.get(k) for k in keys}
    margins["meets_required"] = (margins["margin"] is not None and margins["required_margin"] is not None
                                 and margins["margin"] >= margins["required_margin"])
    return {
        "coverage": _coverage(task, _load(seed_dir, "draft/ledger.json"), public),
        "leaks": {"public_files": [f"draft/{p}" for p in public_paths],
                  "private_files": sorted(p.relative_to(seed_dir).as_posix() for p in private
                                          if p.is_file()),
                  "numbers": leaked_numbers, "identifiers": leaked_names},
        "solution_lines_in_public": copied,
        "margins": margins,
        "gaming": _gaming(draft, calibration_report),
    }


def _gaming(draft: Path, calibration_report: dict) -> dict:
    """The author's gaming samples and what the task-agnostic operators found."""
    mutations = calibration_report.get("mutations") or {}
    gaming = calibration_report.get("gaming") or {}
    return {"samples": sorted(p.name for p in (draft / "calibration" / "gaming").glob("*.py")),
            "sample_results": [{k: row.get(k) for k in ("sample", "rule_score", "refused", "caught_by")}
                               for row in gaming.get("samples", [])],
            "operators_applicable": mutations.get("applicable"), "operators_killed": mutations.get("killed"),
            "operators_not_killed": mutations.get("survivors"), "operators_allowed": mutations.get("allowed")}


def _calibration_summary(report: dict) -> dict:
    rows = [{k: row.get(k) for k in ("sample", "kind", "reward", "success", "expected", "met")}
            for row in report.get("samples", [])]
    keys = ("margin", "required_margin", "min_good", "max_bad", "pass_threshold", "passed", "misses")
    return {**{k: report.get(k) for k in keys}, "samples": rows}


def review_messages(seed_dir: Path, calibration_report: dict, facts: dict) -> list[dict]:
    """A fresh context: the system prompt, then one user message with the seed's files, the
    calibration summary and the facts. Nothing of the authoring conversation."""
    seed_dir = Path(seed_dir)
    seed = _load(seed_dir, "seed.json") or {}
    parts = [f"seed_id: {seed.get('seed_id', seed_dir.name)}", "",
             "## seed.json", (seed_dir / "seed.json").read_text() if seed else "(missing)"]
    for path in _files(seed_dir / "draft"):
        parts += ["", f"## {path.relative_to(seed_dir).as_posix()}", _shown(path)]
    for m in seed.get("materials", []):
        path = seed_dir / m["path"]
        label = "public" if m.get("public") else "private"
        parts += ["", f"## {m['path']} ({m['role']}, {label} material)",
                  _shown(path) if path.is_file() else "(missing)"]
    summary = _calibration_summary(calibration_report)
    parts += ["", "## calibration summary", json.dumps(summary, indent=1),
              "", "## measured facts", json.dumps(facts, indent=1),
              "", "Review the draft and reply with the JSON object."]
    return [{"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": "\n".join(parts)}]


def parse_verdict(text: str | None) -> tuple[str, list[str], dict]:
    """(verdict, reasons, checks) of the reviewer's reply; ValueError says what is wrong."""
    reply = parse_json_reply(text)
    if not isinstance(reply, dict):
        raise ValueError("the reply must be a JSON object with verdict, reasons and checks")
    verdict = reply.get("verdict")
    if verdict not in VERDICTS:
        raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}, got {verdict!r}")
    reasons = reply.get("reasons") or []
    if not isinstance(reasons, list) or not all(isinstance(r, str) for r in reasons):
        raise ValueError("reasons must be a list of strings")
    reasons = [r.strip() for r in reasons if r.strip()]
    if verdict != "accept" and not reasons:
        raise ValueError(f"a {verdict} verdict needs at least one reason")
    checks = reply.get("checks") or {}
    if not isinstance(checks, dict):
        raise ValueError("checks must be an object keyed by check name")
    return verdict, reasons, checks
