"""Difficulty bands (docs/datasets.md "Difficulty bands"): what campaigns measured of each
candidate, read from the revision's difficulty records, against the band its split asks for.

Counts of one (task, config) are pooled across campaigns only within the verifier version the
candidate has now: an attempt graded by another verifier says nothing about this one. A band's
condition is met, unmet, or unmeasured (no record, or too few scored attempts to tell — an
infrastructure exception is not a failed attempt). A candidate no config solved in any scored
attempt is `possibly_impossible`: listed for review, never dropped.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field

from contracts.models import DatasetBand, DatasetSpec
from contracts.solver_configs import SolverRegistry, load_solver_registry
from contracts.validation import ContractError
from dataset_revisions.chain import ChainLink
from dataset_revisions.layout import RevisionKeys
from publications.layout import TASK_TOML
from storage.objects import ObjectMissing, ObjectStore

IN_BAND, OUT_OF_BAND, UNMEASURED, UNBANDED = "in_band", "out_of_band", "unmeasured", "unbanded"
FIELDS = ("solved_by", "not_always_solved_by")


class UnknownBandConfig(ContractError):
    """A band names a config the solver registry does not have (`<file>: bands.<split>.<field>`)."""


def check_band_configs(spec: DatasetSpec, source: str, registry: SolverRegistry | None = None) -> None:
    """Every config a band names is in the solver registry (contracts/solver_configs.json)."""
    registry = registry or load_solver_registry()
    known = [c.id for c in registry.configs]
    for split, band in sorted((spec.bands or {}).items()):
        for name in FIELDS:
            config = getattr(band, name)
            if config is not None and config not in known:
                raise UnknownBandConfig(source, f"bands.{split}.{name}",
                                        f"unknown config {config!r} (the solver registry has "
                                        f"{', '.join(known)})")


@dataclass
class Measure:
    """One config's attempts at one task, pooled over the difficulty records."""

    config_id: str
    kind: str
    label: str
    k: int = 0  # attempts planned, summed over the campaigns
    scored: int = 0
    solved: int = 0
    infra_exceptions: int = 0
    campaigns: list[str] = field(default_factory=list)

    @property
    def solve_rate(self) -> float | None:
        return round(self.solved / self.scored, 6) if self.scored else None


@dataclass
class TaskBand:
    task_id: str
    split: str | None  # the split the selection put it in; None: unused
    verifier_version: str | None
    status: str  # in_band | out_of_band (reasons) | unmeasured (reasons) | unbanded
    reasons: list[str]
    possibly_impossible: bool
    fits: list[str]  # banded splits whose band it meets
    measured: dict[str, Measure]


def read_difficulty(objects: ObjectStore, keys: RevisionKeys) -> list[dict]:
    return [json.loads(objects.get(key)) for key in sorted(objects.list(keys.difficulty_records))
            if key.endswith(".json")]


def verifier_version(objects: ObjectStore, link: ChainLink) -> str | None:
    """The verifier version a candidate has now (its task.toml); None when unreadable (verify
    names that)."""
    try:
        meta = tomllib.loads(objects.get(f"{link.publication_key}/{TASK_TOML}").decode())["metadata"]
    except (ObjectMissing, tomllib.TOMLDecodeError, KeyError, UnicodeDecodeError):
        return None
    return meta.get("verifier_version")


def pool(records: list[dict], versions: dict[str, str | None]) -> dict[str, dict[str, Measure]]:
    """{task id: {config id: Measure}} over the records' tasks held to `versions` (the
    candidates' current verifier versions); other tasks and versions are left out."""
    out: dict[str, dict[str, Measure]] = {}
    for record in records:
        for task in record["tasks"]:
            current = versions.get(task["task_id"])
            if current is None or task["verifier_version"] != current:
                continue
            for c in task["configs"]:
                m = out.setdefault(task["task_id"], {}).setdefault(
                    c["config_id"], Measure(c["config_id"], c["kind"], c["label"]))
                m.k += c["k"]
                m.scored += c["scored"]
                m.solved += c["solved"]
                m.infra_exceptions += c["infra_exceptions"]
                m.campaigns.append(record["campaign_id"])
    return out


def condition(name: str, config: str, m: Measure | None) -> tuple[str, str]:
    """(met | unmet | unmeasured, why) of one band condition."""
    if m is None or m.scored == 0:
        return UNMEASURED, f"{name} {config}: no scored attempt recorded"
    counts = f"{config} solved {m.solved} of {m.scored} scored ({m.k} planned)"
    if name == "solved_by":
        if m.solved >= 1:
            return "met", counts
        # Unscored attempts (infra exceptions) might have solved it: only a full k decides.
        return ("unmet" if m.scored >= m.k else UNMEASURED), f"{name}: {counts}"
    if m.solved < m.scored:
        return "met", counts
    return ("unmet" if m.scored >= m.k else UNMEASURED), f"{name}: {counts}"


def judge(band: DatasetBand, measured: dict[str, Measure]) -> tuple[str, list[str]]:
    """A task's standing against a band: in_band, or out_of_band / unmeasured with why."""
    results = [condition(name, getattr(band, name), measured.get(getattr(band, name)))
               for name in FIELDS if getattr(band, name) is not None]
    unmet = [why for verdict, why in results if verdict == "unmet"]
    unknown = [why for verdict, why in results if verdict == UNMEASURED]
    if unmet:
        return OUT_OF_BAND, unmet + unknown
    if unknown:
        return UNMEASURED, unknown
    return IN_BAND, []


def possibly_impossible(measured: dict[str, Measure]) -> bool:
    """Some config was scored on it and none solved it in any scored attempt."""
    return any(m.scored for m in measured.values()) and not any(m.solved for m in measured.values())


def task_bands(spec: DatasetSpec, candidates: list[ChainLink], placed: dict[str, str],
               records: list[dict], versions: dict[str, str | None]) -> list[TaskBand]:
    """The band of every candidate (`placed`: task id -> the split the selection chose)."""
    pooled = pool(records, versions)
    bands = spec.bands or {}
    out = []
    for link in sorted(candidates, key=lambda c: c.task_id):
        measured = pooled.get(link.task_id, {})
        split = placed.get(link.task_id)
        verdicts = {name: judge(band, measured) for name, band in bands.items()}
        status, reasons = verdicts[split] if split in verdicts else (UNBANDED, [])
        out.append(TaskBand(link.task_id, split, versions.get(link.task_id), status, reasons,
                            possibly_impossible(measured),
                            sorted(n for n, (s, _) in verdicts.items() if s == IN_BAND), measured))
    return out
