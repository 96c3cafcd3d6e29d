"""Validate documents against the JSON Schemas and turn them into models.

Every failure is a `ContractError` naming the file and the field, so that whoever wrote a seed
or a document outside the project can fix it without reading our code. The schema is checked
first (it explains itself best: file, field, what a pattern means); the pydantic model it was
generated from is built after.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from pydantic import ValidationError as ModelValidationError

from contracts.json_schemas import KINDS, generate
from contracts.models import Contract

# kind -> model; the kind also names the schema, `schemas/<kind>.schema.json`.
DOCUMENTS: dict[str, type[Contract]] = {kind: model for kind, (model, _title) in KINDS.items()}

ROOT = "<root>"
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class ContractError(Exception):
    """A document breaks its contract. `str()` is `"{file}: {field}: {reason}"`, where
    `field` is a path such as `criteria[2].weight` (`<root>` for the whole file) and the
    problem is the most relevant one (jsonschema's best match); `details` lists every problem
    found as `"{field}: {reason}"`, sorted by field."""

    def __init__(self, file: str, field: str, reason: str, details: tuple[str, ...] = ()) -> None:
        super().__init__(file, field, reason, details)
        self.file = file
        self.field = field
        self.reason = reason
        self.details = details

    def __str__(self) -> str:
        return f"{self.file}: {self.field}: {self.reason}"


def _kind(name: str) -> str:
    kind = name.removesuffix(".json").removesuffix(".schema")
    if kind not in DOCUMENTS:
        raise ValueError(f"unknown document kind {name!r}; known: {', '.join(DOCUMENTS)}")
    return kind


def load_schema(name: str) -> dict[str, Any]:
    """The schema of a document kind ("task") or schema file ("task.schema.json"), as its model
    generates it (the committed file is the same text), checked against the 2020-12
    metaschema. Cached: do not mutate the result."""
    return _load_schema(_kind(name))


@cache
def _load_schema(kind: str) -> dict[str, Any]:
    schema = generate(kind)
    Draft202012Validator.check_schema(schema)
    return schema


@cache
def _validator(kind: str) -> Draft202012Validator:
    return Draft202012Validator(_load_schema(kind))


def format_path(path: Iterable[str | int]) -> str:
    """`["criteria", 2, "weight"]` -> `criteria[2].weight`; the empty path is `<root>`."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _IDENTIFIER.match(part):
            out += f".{part}" if out else part
        else:
            out += f"[{part!r}]"
    return out or ROOT


def _describe(error: ValidationError) -> tuple[str, str]:
    """(field, reason) of a schema error, naming the offending key where the error sits on
    its parent object (missing or unexpected properties)."""
    path = list(error.absolute_path)
    schema = error.schema if isinstance(error.schema, dict) else {}
    if error.validator == "required":
        missing = [p for p in error.validator_value if p not in error.instance]
        name = next((p for p in missing if error.message == f"{p!r} is a required property"), None)
        if name is not None:
            return format_path([*path, name]), "is a required property"
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = schema.get("properties", {})
        extra = [key for key in error.instance if key not in known]
        if extra:
            also = f" (also unexpected: {', '.join(map(repr, extra[1:]))})" if extra[1:] else ""
            return format_path([*path, extra[0]]), f"is not an allowed property{also}"
    # A regex, a constant, a `contains` or an if/then rule does not explain itself; the
    # schema's description of the failing subschema does, so it goes into the reason.
    description = schema.get("description")
    message = error.message
    if error.validator == "contains":
        message = "no item matches the required `contains` schema"
    if description and error.validator == "pattern":
        return format_path(path), f"{error.instance!r} is not {description}"
    conditional = any(part in ("then", "else") for part in error.absolute_schema_path)
    explains = error.validator in ("const", "contains", "minContains", "maxContains")
    if description and (explains or conditional):
        message = f"{message} ({description})"
    return format_path(path), message


def _path_key(error: ValidationError) -> tuple[tuple[int, int | str], ...]:
    return tuple((0, p) if isinstance(p, int) else (1, p) for p in error.absolute_path)


def validate_document(kind: str, data: Any, source: str) -> Contract:
    """Check `data` against the schema of `kind`, then build its model.

    `source` names the document in errors (usually its path). Raises `ContractError`."""
    kind = _kind(kind)
    errors = sorted(_validator(kind).iter_errors(data), key=_path_key)
    if errors:
        field, reason = _describe(best_match(errors))
        details = tuple(": ".join(_describe(best_match([error]))) for error in errors)
        raise ContractError(source, field, reason, details)
    try:
        return DOCUMENTS[kind].model_validate(data)
    except ModelValidationError as exc:
        # The schema accepted what the model rejects: the two disagree, which the agreement
        # tests exist to prevent. Still report it as a contract error, never crash.
        raise model_error(source, exc) from exc


def build_document(kind: str, data: Any, source: str) -> dict[str, Any]:
    """The document of `kind` as its model writes it: checked against the schema, built
    through the model, dumped back. What the pipeline writes goes through here."""
    return validate_document(kind, data, source).model_dump(mode="json")


def model_error(source: str, exc: ModelValidationError) -> ContractError:
    """A pydantic validation error as a `ContractError` on its first problem."""
    problems = exc.errors(include_url=False)
    details = tuple(f"{format_path(p['loc'])}: {p['msg']}" for p in problems)
    return ContractError(source, format_path(problems[0]["loc"]), problems[0]["msg"], details)


def _reject_constant(source: str) -> Callable[[str], Any]:
    def reject(name: str) -> Any:
        raise ContractError(source, ROOT, f"{name} is not a JSON number")

    return reject


def _no_duplicate_keys(source: str) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    def build(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj: dict[str, Any] = {}
        for key, value in pairs:
            if key in obj:
                raise ContractError(source, ROOT, f"duplicate key {key!r} in one object")
            obj[key] = value
        return obj

    return build


def parse_json(text: str | bytes, source: str) -> Any:
    """Parse strict JSON: no NaN/Infinity and no duplicate keys, which `json` would silently
    accept (a duplicated "weight" would drop one of them). Raises `ContractError`."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            reason = f"not UTF-8 text ({exc.reason} at byte {exc.start})"
            raise ContractError(source, ROOT, reason) from None
    try:
        return json.loads(
            text,
            parse_constant=_reject_constant(source),
            object_pairs_hook=_no_duplicate_keys(source),
        )
    except json.JSONDecodeError as exc:
        raise ContractError(
            source, ROOT, f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None


def _read_bytes(path: Path, source: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise ContractError(source, ROOT, "file not found") from None
    except OSError as exc:
        raise ContractError(source, ROOT, f"cannot read: {exc.strerror}") from None


def load_json_file(path: Path, source: str | None = None) -> Any:
    """Read and parse a JSON file; unreadable or malformed files raise `ContractError`."""
    source = source or str(path)
    return parse_json(_read_bytes(path, source), source)


def read_json(path: Path, kind: str, source: str | None = None) -> Contract:
    """Read, parse and validate one document file (`source` defaults to the path)."""
    source = source or str(path)
    return validate_document(kind, load_json_file(path, source), source)


def read_jsonl(path: Path, kind: str, source: str | None = None) -> list[Contract]:
    """Read a JSON-lines file such as `trials.jsonl`: one document per non-blank line, each
    reported as `<source>:<line number>`."""
    source = source or str(path)
    documents = []
    for number, line in enumerate(_read_bytes(path, source).splitlines(), start=1):
        if line.strip():
            where = f"{source}:{number}"
            documents.append(validate_document(kind, parse_json(line, where), where))
    return documents
