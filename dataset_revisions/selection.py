"""Deterministic, balanced, source-isolated selection of a revision's tasks into splits.

The same function serves `freeze-check` and `freeze`, so what the check reports is what the
freeze writes. Given the same candidates, spec and seed value it always picks the same tasks:
order comes from sha256(seed value, name), never from listing order or the clock.

1. Group candidates by provenance source; order each group by sha256(seed, task id) and keep
   at most `max_per_source`.
2. Take sources largest first (ties by sha256(seed, source)); give each whole source to a
   split that can still take all of it (or, when none can, to any split still short), the one
   furthest from its target (relative gap, then absolute; ties by split name), up
   to what that split still needs. A source never lands in two splits; what a split cannot
   take of it stays unused.
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


def _rank(seed: int, name: str) -> str:
    return hashlib.sha256(f"{seed}:{name}".encode()).hexdigest()


def select(candidates: list[Candidate], targets: dict[str, int], max_per_source: int,
           seed: int) -> dict[str, list[Candidate]]:
    by_source: dict[str, list[Candidate]] = {}
    for c in candidates:
        by_source.setdefault(c.source, []).append(c)
    capped = {s: sorted(cs, key=lambda c: _rank(seed, c.task_id))[:max_per_source]
              for s, cs in by_source.items()}
    order = sorted(capped, key=lambda s: (-len(capped[s]), _rank(seed, s)))
    splits = sorted(targets)  # never the spec's key order: JSON payloads may sort keys
    chosen: dict[str, list[Candidate]] = {name: [] for name in splits}
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
