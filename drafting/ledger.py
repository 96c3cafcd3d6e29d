"""The requirement ledger (`draft/ledger.json`): how each graded requirement traces back to the
seed's materials and forward to what the solver reads and what grades it.

    {"ledger_version": "1",
     "requirements": [{"requirement_id": "REQ-PARTS",
                       "source": {"file": "materials/brief.md", "passage": "parts named so ..."},
                       "public": {"file": "public/spec.md", "anchor": "REQ-PARTS"},
                       "criteria": ["C01", "V01"],
                       "evidence": "objects_exist on the five part names; VL gate A"}]}

A model-authored draft must carry one; `check_ledger` returns every problem as a finding:
the passage must be verbatim in the named material (whitespace-insensitive), the public
location must be the instruction or a public attachment and hold the anchor, every criterion
listed must exist with that requirement id, and every requirement the task grades is in it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, StringConstraints

from contracts.models import SeedManifest, Task
from drafting.feedback import Finding

LEDGER = "draft/ledger.json"
NonEmpty = Annotated[str, StringConstraints(min_length=1)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SourcePassage(_Strict):
    file: NonEmpty  # a material of seed.json
    passage: NonEmpty  # verbatim from it


class PublicLocation(_Strict):
    file: NonEmpty  # inside draft/: the instruction or a public attachment
    anchor: NonEmpty  # text found there (the requirement id, a heading)


class LedgerEntry(_Strict):
    requirement_id: NonEmpty
    source: SourcePassage
    public: PublicLocation
    criteria: Annotated[list[NonEmpty], Field(min_length=1)]
    evidence: NonEmpty  # what the criteria measure as proof


class Ledger(_Strict):
    ledger_version: NonEmpty
    requirements: Annotated[list[LedgerEntry], Field(min_length=1)]


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def check_ledger(seed_dir: Path, manifest: SeedManifest, task: Task) -> list[Finding]:
    path = seed_dir / LEDGER
    if not path.is_file():
        return [Finding("ledger", "a model-authored draft needs a requirement ledger", file=LEDGER)]
    try:
        ledger = Ledger.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, UnicodeDecodeError) as exc:
        if isinstance(exc, ValidationError):
            return [Finding("ledger", e["msg"], file=LEDGER,
                            field=".".join(str(p) for p in e["loc"]) or None)
                    for e in exc.errors()]
        return [Finding("ledger", f"not JSON: {exc}", file=LEDGER)]
    materials = {m.path for m in manifest.materials}
    public_files = {task.instruction, *task.public_attachments}
    criteria = {c.id: c for c in task.criteria}
    findings: list[Finding] = []
    for i, entry in enumerate(ledger.requirements):
        where = f"requirements[{i}]"
        if entry.source.file not in materials:
            findings.append(Finding("ledger", f"{entry.source.file!r} is not a material of seed.json",
                                    file=LEDGER, field=f"{where}.source.file"))
        elif (text := _read(seed_dir / entry.source.file)) is None or \
                _norm(entry.source.passage) not in _norm(text):
            findings.append(Finding("ledger", f"the passage is not in {entry.source.file} verbatim",
                                    file=LEDGER, field=f"{where}.source.passage"))
        if entry.public.file not in public_files:
            findings.append(Finding("ledger", f"{entry.public.file!r} is neither the instruction nor "
                                    f"a public attachment ({', '.join(sorted(public_files))})",
                                    file=LEDGER, field=f"{where}.public.file"))
        elif (text := _read(seed_dir / "draft" / entry.public.file)) is None or \
                _norm(entry.public.anchor) not in _norm(text):
            findings.append(Finding("ledger", f"anchor {entry.public.anchor!r} is not in "
                                    f"draft/{entry.public.file}", file=LEDGER, field=f"{where}.public.anchor"))
        for j, cid in enumerate(entry.criteria):
            criterion = criteria.get(cid)
            if criterion is None:
                findings.append(Finding("ledger", f"{cid!r} is not a criterion of draft/task.json",
                                        file=LEDGER, field=f"{where}.criteria[{j}]"))
            elif criterion.requirement_id != entry.requirement_id:
                findings.append(Finding("ledger", f"{cid} grades {criterion.requirement_id}, not "
                                        f"{entry.requirement_id}", file=LEDGER, field=f"{where}.criteria[{j}]"))
    listed = {e.requirement_id for e in ledger.requirements}
    for i, c in enumerate(task.criteria):
        if c.requirement_id not in listed:
            findings.append(Finding("ledger", f"{c.requirement_id} (graded by {c.id}) has no ledger "
                                    "entry", file="draft/task.json", field=f"criteria[{i}].requirement_id"))
    return findings
