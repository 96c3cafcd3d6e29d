"""The freeze rules, one small function each (RewardKit style): given the selection and the
spec, the gaps that keep the revision from freezing. An empty list means the rule holds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from contracts.models import DatasetSpec
from dataset_revisions.selection import Candidate

Selection = dict[str, list[Candidate]]


@dataclass(frozen=True)
class Gap:
    rule: str
    message: str


def split_minimums(sel: Selection, spec: DatasetSpec) -> list[Gap]:
    return [Gap("split_minimums", f"split {name} holds {len(sel.get(name, []))} tasks, needs {need}")
            for name, need in spec.splits.items() if len(sel.get(name, [])) < need]


def max_per_source(sel: Selection, spec: DatasetSpec) -> list[Gap]:
    counts: dict[str, int] = {}
    for tasks in sel.values():
        for c in tasks:
            counts[c.source] = counts.get(c.source, 0) + 1
    return [Gap("max_per_source", f"source {s!r} has {n} tasks, at most {spec.max_per_source} allowed")
            for s, n in sorted(counts.items()) if n > spec.max_per_source]


def sources_isolated(sel: Selection, spec: DatasetSpec) -> list[Gap]:
    seen: dict[str, set[str]] = {}
    for split, tasks in sel.items():
        for c in tasks:
            seen.setdefault(c.source, set()).add(split)
    return [Gap("sources_isolated", f"source {s!r} is shared by splits {', '.join(sorted(splits))}")
            for s, splits in sorted(seen.items()) if len(splits) > 1]


def _coverage(rule: str, what: str, attr: str, need: int, sel: Selection) -> list[Gap]:
    gaps = []
    for split, tasks in sel.items():
        have = sorted({getattr(c, attr) for c in tasks})
        if len(have) < need:
            gaps.append(Gap(rule, f"split {split} covers {len(have)} {what} ({', '.join(have) or 'none'}), "
                                  f"needs {need}"))
    return gaps


def group_coverage(sel: Selection, spec: DatasetSpec) -> list[Gap]:
    return _coverage("group_coverage", "workflow groups", "workflow_group",
                     spec.coverage.min_groups_per_split, sel)


def profession_coverage(sel: Selection, spec: DatasetSpec) -> list[Gap]:
    return _coverage("profession_coverage", "professions", "profession",
                     spec.coverage.min_professions_per_split, sel)


def source_share(split_target: int, spec: DatasetSpec) -> int:
    """A split's share of `min_sources`, in proportion to its target (at least 1 when any)."""
    need = spec.coverage.min_sources
    if not need:
        return 0
    return max(1, need * split_target // sum(spec.splits.values()))


def source_coverage(sel: Selection, spec: DatasetSpec) -> list[Gap]:
    gaps = []
    total = {c.source for tasks in sel.values() for c in tasks}
    if len(total) < spec.coverage.min_sources:
        gaps.append(Gap("source_coverage", f"the splits draw on {len(total)} sources, "
                                           f"need {spec.coverage.min_sources}"))
    for split, target in spec.splits.items():
        have = {c.source for c in sel.get(split, [])}
        need = source_share(target, spec)
        if len(have) < need:
            gaps.append(Gap("source_coverage", f"split {split} draws on {len(have)} sources, needs {need}"))
    return gaps


RULES: list[Callable[[Selection, DatasetSpec], list[Gap]]] = [
    split_minimums, max_per_source, sources_isolated, group_coverage, profession_coverage,
    source_coverage,
]


def difficulty_bands(sel: Selection, spec: DatasetSpec, bands: dict) -> list[Gap]:
    """Every selected task of a banded split meets its split's band (`bands`: task id ->
    dataset_revisions.bands.TaskBand). Not in RULES: it needs the difficulty records too."""
    gaps = []
    for split in sorted(spec.bands or {}):
        for c in sel.get(split, []):
            band = bands[c.task_id]
            if band.status != "in_band":
                gaps.append(Gap("difficulty_bands", f"split {split}: {c.task_id} is {band.status.replace('_', ' ')}"
                                                    f" ({'; '.join(band.reasons)})"))
    return gaps
