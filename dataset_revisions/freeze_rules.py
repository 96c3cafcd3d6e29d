"""The freeze rules, one small function each (RewardKit style): given the selection and the
spec, the gaps that keep the revision from freezing. An empty list means the rule holds.

Sources are counted by lineage family (`Candidate.family`: the original provenance source,
kept through derivation), so a task derived from another is never split from it. Two rules
look beyond the selection: `pin_gaps` (the candidates' split pins) and `cross_revision_pairs`
(the other frozen revisions of the namespace)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from contracts.models import DatasetSpec
from dataset_revisions.selection import Candidate, family_pins

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
            counts[c.family] = counts.get(c.family, 0) + 1
    return [Gap("max_per_source", f"source {s!r} has {n} tasks, at most {spec.max_per_source} allowed")
            for s, n in sorted(counts.items()) if n > spec.max_per_source]


def sources_isolated(sel: Selection, spec: DatasetSpec) -> list[Gap]:
    seen: dict[str, set[str]] = {}
    for split, tasks in sel.items():
        for c in tasks:
            seen.setdefault(c.family, set()).add(split)
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
    total = {c.family for tasks in sel.values() for c in tasks}
    if len(total) < spec.coverage.min_sources:
        gaps.append(Gap("source_coverage", f"the splits draw on {len(total)} sources, "
                                           f"need {spec.coverage.min_sources}"))
    for split, target in spec.splits.items():
        have = {c.family for c in sel.get(split, [])}
        need = source_share(target, spec)
        if len(have) < need:
            gaps.append(Gap("source_coverage", f"split {split} draws on {len(have)} sources, needs {need}"))
    return gaps


@dataclass(frozen=True)
class Placed:
    """A task where a selection or a frozen manifest put it."""

    task_id: str
    split: str
    root: str
    family: str
    revision: str = ""  # "": the revision being checked

    def where(self, namespace: str) -> str:
        return self.split if not self.revision else f"{self.split} of {namespace}/{self.revision}"


@dataclass(frozen=True)
class LineagePair:
    """Two tasks of one lineage family in different splits: what a model trained on one
    learns of the other."""

    family: str
    a: Placed
    b: Placed

    def message(self, namespace: str) -> str:
        roots = sorted({self.a.root, self.b.root})
        shared = f"root {roots[0]!r}" if len(roots) == 1 else "roots " + ", ".join(map(repr, roots))
        return (f"task {self.a.task_id} ({self.a.where(namespace)}) and task {self.b.task_id} "
                f"({self.b.where(namespace)}) share lineage family {self.family!r} ({shared})")


def _placed(sel: Selection) -> list[Placed]:
    return [Placed(c.task_id, split, c.root, c.family) for split, tasks in sorted(sel.items()) for c in tasks]


def selection_pairs(sel: Selection) -> list[LineagePair]:
    """Every pair of selected tasks of one family in two splits (the selection never makes
    one; a custom selector can)."""
    placed = sorted(_placed(sel), key=lambda p: (p.family, p.split, p.task_id))
    return [LineagePair(a.family, a, b) for i, a in enumerate(placed) for b in placed[i + 1:]
            if a.family == b.family and a.split != b.split]


def cross_revision_pairs(sel: Selection, elsewhere: list[Placed]) -> list[LineagePair]:
    """Every selected task whose family sits in another split of another frozen revision."""
    return [LineagePair(p.family, p, other) for p in _placed(sel) for other in elsewhere
            if other.family == p.family and other.split != p.split]


def lineage_pairs(sel: Selection, spec: DatasetSpec) -> list[Gap]:
    return [Gap("lineage_pairs", pair.message(spec.namespace)) for pair in selection_pairs(sel)]


def lineage_pins(sel: Selection, spec: DatasetSpec) -> list[Gap]:
    """A task outside the split its lineage is pinned to (a custom selector)."""
    return [Gap("lineage_pins", f"task {c.task_id} is in split {split}, but its lineage "
                                f"(family {c.family!r}) is pinned to split {c.lineage_split}")
            for split, tasks in sorted(sel.items()) for c in tasks
            if c.lineage_split and c.lineage_split != split]


def pin_gaps(pool: list[Candidate], spec: DatasetSpec) -> list[Gap]:
    """Families the selection cannot place without leakage: pinned to two splits, or to a
    split the spec does not have."""
    gaps = []
    for family, splits in sorted(family_pins(pool).items()):
        tasks = ", ".join(sorted(c.task_id for c in pool if c.family == family and c.lineage_split))
        if len(splits) > 1:
            gaps.append(Gap("lineage_pins", f"lineage family {family!r} is pinned to splits "
                                            f"{', '.join(sorted(splits))} ({tasks})"))
        elif not splits <= set(spec.splits):
            gaps.append(Gap("lineage_pins", f"lineage family {family!r} is pinned to split "
                                            f"{next(iter(splits))}, which the spec has not ({tasks})"))
    return gaps


RULES: list[Callable[[Selection, DatasetSpec], list[Gap]]] = [
    split_minimums, max_per_source, sources_isolated, lineage_pairs, lineage_pins, group_coverage,
    profession_coverage, source_coverage,
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
