"""Deterministic, balanced, source-isolated selection of a revision's tasks into splits.

The same function serves `freeze-check` and `freeze`, so what the check reports is what the
freeze writes. Given the same candidates, spec and seed value it always picks the same tasks:
order comes from sha256(seed value, name), never from listing order or the clock.

1. Group candidates by lineage family (the original provenance source, kept through
   derivation: a task derived from another is in its family); order each group by
   sha256(seed, task id) and keep at most `max_per_source`.
2. Families pinned to a split (a task of theirs carries `lineage_split`, docs/datasets.md)
   go first, each only to its split, up to what it still needs; a family pinned to two splits,
   or to one the spec has not, stays unused (freeze_rules names it).
3. Then the other families, largest first (ties by sha256(seed, family)); give each whole
   family to a split that can still take all of it (or, when none can, to any split still
   short), the one furthest from its target (relative gap, then absolute; ties by split name),
   up to what that split still needs. A family never lands in two splits; what a split cannot
   take of it stays unused.

For seeds that are their own roots the family is the provenance source, so such a revision
selects exactly as when the selection keyed on `source`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Candidate:
    task_id: str
    task_version: str
    publication_id: str
    publication_sha256: str
    source: str
    workflow_group: str
    profession: str
    lineage_root: str = ""  # "": the task is its own root
    lineage_family: str = ""  # "": its family is its source
    lineage_split: str = ""  # the split its lineage is pinned to ("": none)

    @property
    def family(self) -> str:
        """The split key: isolation, max_per_source and coverage count families."""
        return self.lineage_family or self.source

    @property
    def root(self) -> str:
        return self.lineage_root or self.task_id


def family_pins(candidates: list[Candidate]) -> dict[str, set[str]]:
    """{family: the splits its tasks are pinned to} for each family with a pinned task."""
    pins: dict[str, set[str]] = {}
    for c in candidates:
        if c.lineage_split:
            pins.setdefault(c.family, set()).add(c.lineage_split)
    return pins


def rank(seed: int, name: str) -> str:
    """The order of equals: sha256(seed value, name), never listing order or the clock."""
    return hashlib.sha256(f"{seed}:{name}".encode()).hexdigest()


def select(candidates: list[Candidate], targets: dict[str, int], max_per_source: int,
           seed: int) -> dict[str, list[Candidate]]:
    by_family: dict[str, list[Candidate]] = {}
    for c in candidates:
        by_family.setdefault(c.family, []).append(c)
    capped = {s: sorted(cs, key=lambda c: rank(seed, c.task_id))[:max_per_source]
              for s, cs in by_family.items()}
    splits = sorted(targets)  # never the spec's key order: JSON payloads may sort keys
    chosen: dict[str, list[Candidate]] = {name: [] for name in splits}
    pins = family_pins(candidates)
    for family in sorted(pins, key=lambda f: (-len(capped[f]), rank(seed, f))):
        split = next(iter(pins[family])) if len(pins[family]) == 1 else None
        if split is not None and split in chosen:
            chosen[split].extend(capped[family][:max(0, targets[split] - len(chosen[split]))])
    order = sorted((f for f in capped if f not in pins), key=lambda s: (-len(capped[s]), rank(seed, s)))
    for source in order:
        open_splits = [s for s in splits if len(chosen[s]) < targets[s]]
        if not open_splits:
            break
        need = {s: targets[s] - len(chosen[s]) for s in open_splits}
        whole = [s for s in open_splits if need[s] >= len(capped[source])]
        split = max(whole or open_splits,
                    key=lambda s: (need[s] / targets[s], need[s], -splits.index(s)))
        chosen[split].extend(capped[source][:targets[split] - len(chosen[split])])
    return {name: sorted(tasks, key=lambda c: c.task_id) for name, tasks in chosen.items()}


def semantic_digest(selection: dict[str, list[Candidate]]) -> str:
    """sha256 over each split's sorted (task id, task version) pairs: what was chosen, not
    when or by whom."""
    from contracts.digests import canonical_json_bytes  # stdlib-only module

    doc = {split: sorted([c.task_id, c.task_version] for c in tasks)
           for split, tasks in sorted(selection.items())}
    return hashlib.sha256(canonical_json_bytes(doc)).hexdigest()
