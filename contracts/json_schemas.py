"""The JSON Schemas of the documents, generated from the pydantic models in `contracts/models.py`.

The models are the one source of truth: each document is described once, as a model, and its
schema is derived here. `contracts/schemas/*.schema.json` are this module's output, committed
for readers and tools outside the project (seed authors validate against them); a test fails
when they differ from what the models generate. Regenerate them with

    python -m contracts.json_schemas          # or: make schemas

pydantic's own output is valid JSON Schema; this module only makes it read like a hand-written
one and explain its failures: titles that repeat the property name go, `int | float` unions
become one `number`, and the id-like string patterns become named `$defs` whose description is
what a pattern error says ("'../x' is not a relative POSIX path ...").
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from contracts import models

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE_ID = "https://arkevo.dev/schemas/"

# kind -> (model, title); the kind is also the schema's file name, `schemas/<kind>.schema.json`.
KINDS: dict[str, tuple[type[models.Contract], str]] = {
    "seed": (models.SeedManifest, "Seed manifest"),
    "task": (models.Task, "Task"),
    "taxonomy": (models.Taxonomy, "Taxonomy"),
    "rubric": (models.Rubric, "Rubric"),
    "trial-record": (models.TrialRecord, "Trial record"),
    "evaluation-plan": (models.EvaluationPlan, "Evaluation plan"),
    "publication": (models.Publication, "Publication"),
    "publication-records": (models.PublicationRecords, "Publication records"),
    "handoff-event": (models.HandoffEvent, "Handoff event"),
    "privacy-policy": (models.PrivacyPolicy, "Privacy policy"),
    "dataset-spec": (models.DatasetSpec, "Dataset spec"),
    "split-manifest": (models.SplitManifest, "Split manifest"),
    "retraction": (models.Retraction, "Retraction"),
    "campaign-plan": (models.CampaignPlan, "Campaign plan"),
    "recovery-audit": (models.RecoveryAudit, "Recovery audit"),
    "preflight": (models.Preflight, "Campaign preflight"),
    "difficulty-record": (models.DifficultyRecord, "Difficulty record"),
}

# pattern -> ($defs name, what a matching string is); a pattern error reads "'x' is not <this>".
NAMED_PATTERNS: dict[str, tuple[str, str]] = {
    models.SLUG: ("slug", "a lowercase slug of 2 to 63 characters: letters, digits and '-'"),
    models.NAME: ("name", "an identifier: a letter or digit, then letters, digits, '.', '_' or '-' "
                          "(at most 128 characters)"),
    models.VERSION: ("version", "a version: a letter or digit, then letters, digits, '.', '+' or '-'"),
    models.SEMVER: ("semver", "a semantic version such as 1.0.0"),
    models.SOFTWARE_VERSION: ("software_version", "a major.minor[.patch] release such as 5.2"),
    models.TEXT: ("text", "a non-blank string"),
    models.RELPATH: ("relpath", "a relative POSIX path inside its folder (no leading '/', no empty, "
                                "'.' or '..' segment, no backslash)"),
    models.SEEDPATH: ("seedpath", "a seed folder: relative to the workers' project root, or absolute; "
                                  "no empty, '.' or '..' segment, no backslash"),
    models.SHA256: ("sha256", "a SHA-256 digest: 64 lowercase hex digits"),
    models.TIMESTAMP: ("timestamp", "an ISO 8601 date-time with a time zone, such as "
                                    "2026-01-31T12:00:00Z"),
    models.WORKFLOW_ID: ("workflow_id", "a taxonomy workflow id such as ANI-07: its group, '-', two digits"),
    models.PROFESSION_ID: ("profession_id", "a taxonomy profession id such as PRF-ANIM"),
    models.CRITERION_ID: ("criterion_id", "a criterion id such as C01: a letter or digit, then letters, "
                                          "digits, '.', '_' or '-'"),
    models.REQUIREMENT_ID: ("requirement_id", "a requirement id such as R1: a letter, then letters, digits, "
                                              "'_', '.' or '-'"),
    models.METHOD: ("method", "a grading method name in snake_case, such as location_at_frame"),
    models.CAMPAIGN_ID: ("campaign_id", "a campaign id: a lowercase letter or digit, then lowercase "
                                        "letters, digits, '.', '_' or '-' (at most 80 characters)"),
    models.POOL: ("pool", "a pool name: lowercase letters"),
    models.PARAMETER_NAME: ("parameter_name", "a seed family's parameter name (a template variable): a "
                                              "lowercase letter, then lowercase letters, digits or '_' "
                                              "(at most 32 characters)"),
}
# RFC 3339 as an annotation too, for tools that read `format`; the pattern is what is enforced.
_FORMATS = {models.TIMESTAMP: "date-time"}

# Keywords whose value is one subschema, a list of them, or a name -> subschema map.
_ONE = ("items", "additionalProperties", "propertyNames", "contains", "not", "if", "then", "else")
_MANY = ("anyOf", "allOf", "oneOf", "prefixItems")
_MAP = ("properties", "$defs")
_READING_ORDER = (
    "$schema", "$id", "title", "$ref", "description", "type", "const", "enum", "format", "pattern",
    "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "minLength", "minItems",
    "minProperties", "uniqueItems", "default", "additionalProperties", "propertyNames", "required",
    "properties", "items", "contains", "minContains", "maxContains", "anyOf",
)


def generate(kind: str) -> dict[str, Any]:
    """The JSON Schema of document `kind` ("task"), as it is written to `schemas/`."""
    model, title = KINDS[kind]
    raw = model.model_json_schema(mode="validation")
    defs: dict[str, Any] = {}
    body = _tidy(raw, defs)
    body.pop("title", None)
    own_defs = body.pop("$defs", {})
    schema = {"$schema": DRAFT, "$id": f"{BASE_ID}{kind}.schema.json", "title": title, **body}
    merged = {**own_defs, **dict(sorted(defs.items()))}
    if merged:
        schema["$defs"] = merged
    return schema


def _tidy(node: Any, defs: dict[str, Any]) -> Any:
    """A subschema with titles dropped, int | float unions merged and named patterns as `$ref`s
    (their definitions collected in `defs`)."""
    if not isinstance(node, dict):
        return node
    node = _pattern_keys_as_names(node)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title":
            continue
        if key == "description":
            out[key] = " ".join(value.split())  # docstrings wrap; a schema's text does not
            continue
        if key in _ONE:
            out[key] = _tidy(value, defs)
        elif key in _MANY:
            out[key] = [_tidy(item, defs) for item in value]
        elif key in _MAP:
            out[key] = {name: _tidy(sub, defs) for name, sub in value.items()}
        else:
            out[key] = value
    out = _in_reading_order(_merge_number_union(out))
    pattern = out.get("pattern")
    if out.get("type") == "string" and pattern in NAMED_PATTERNS:
        name, description = NAMED_PATTERNS[pattern]
        definition = {"description": description, "type": "string", "pattern": pattern}
        if pattern in _FORMATS:
            definition["format"] = _FORMATS[pattern]
        defs[name] = definition
        rest = {k: v for k, v in out.items() if k not in ("type", "pattern")}
        out = _in_reading_order({**rest, "$ref": f"#/$defs/{name}"})
    return out


def _in_reading_order(node: dict[str, Any]) -> dict[str, Any]:
    """What a node is first, its parts after, its definitions last (pydantic sorts keys)."""
    rank = {key: index for index, key in enumerate(_READING_ORDER)}
    return dict(sorted(node.items(), key=lambda item: rank.get(item[0], len(rank))))


def _pattern_keys_as_names(node: dict[str, Any]) -> dict[str, Any]:
    """`dict[Slug, X]` comes out as `patternProperties: {slug: X}`, which lets any other key
    through; the model refuses other keys, so: `propertyNames` plus `additionalProperties`."""
    patterns = node.get("patternProperties")
    if not isinstance(patterns, dict) or len(patterns) != 1 or "additionalProperties" in node:
        return node
    ((pattern, values),) = patterns.items()
    rest = {k: v for k, v in node.items() if k != "patternProperties"}
    return {**rest, "propertyNames": {"type": "string", "pattern": pattern}, "additionalProperties": values}


def _merge_number_union(node: dict[str, Any]) -> dict[str, Any]:
    """`anyOf: [{integer, C}, {number, C}]` (how the models keep 1 and 1.0 apart) is one JSON
    number with the constraints C; a null branch, if any, stays beside it."""
    branches = node.get("anyOf")
    if not isinstance(branches, list):
        return node
    ints = [b for b in branches if b.get("type") == "integer"]
    numbers = [b for b in branches if b.get("type") == "number"]
    if len(ints) != 1 or len(numbers) != 1:
        return node
    (whole,), (number,) = ints, numbers
    if {k: v for k, v in whole.items() if k != "type"} != {k: v for k, v in number.items() if k != "type"}:
        return node
    others = [b for b in branches if b is not whole and b is not number]
    rest = {k: v for k, v in node.items() if k != "anyOf"}
    if not others:
        return {**rest, **number}
    return {**rest, "anyOf": [number, *others]}


def render(kind: str) -> str:
    """The text of `schemas/<kind>.schema.json`."""
    return json.dumps(generate(kind), indent=2, ensure_ascii=False) + "\n"


def stale() -> list[str]:
    """Schema files that differ from what the models generate (or should not exist)."""
    wanted = {f"{kind}.schema.json": render(kind) for kind in KINDS}
    present = {p.name: p.read_text(encoding="utf-8") for p in SCHEMA_DIR.glob("*.schema.json")}
    return sorted(name for name in wanted.keys() | present.keys() if wanted.get(name) != present.get(name))


def write() -> list[str]:
    """Write every schema file from the models (and remove any without a model); the changed names."""
    changed = stale()
    SCHEMA_DIR.mkdir(exist_ok=True)
    for name in changed:
        kind = name.removesuffix(".schema.json")
        path = SCHEMA_DIR / name
        if kind in KINDS:
            path.write_text(render(kind), encoding="utf-8")
        else:
            path.unlink()
    return changed


USAGE = """usage: python -m contracts.json_schemas [--check]   (make schemas)

Writes contracts/schemas/*.json from the pydantic models; --check writes nothing and says
which committed schema differs from what its model generates.

exit codes:
  0  written (--check: every schema current)
  1  --check: a schema differs
  2  bad usage"""


def main(argv: list[str]) -> int:
    if argv in (["--help"], ["-h"]):
        print(USAGE)
        return 0
    if argv == ["--check"]:
        changed = stale()
        for name in changed:
            print(f"contracts/schemas/{name} differs from its model; run `make schemas`", file=sys.stderr)
        return 1 if changed else 0
    if argv:
        print(USAGE, file=sys.stderr)
        return 2
    for name in write():
        print(f"wrote contracts/schemas/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
