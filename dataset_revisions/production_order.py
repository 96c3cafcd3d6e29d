"""The order in which DatasetProduction starts a revision's seeds: the gaps first.

A seed is worth most when it brings what the revision's freeze still lacks: a source family it
holds few tasks of (the selection keeps at most `max_per_source` per family, and each split
needs its share of families) and a workflow group or profession not yet covered. So:

1. Families are taken round-robin: round r starts the r-th seed of every family, the families
   with the fewest tasks already published first (ties by sha256(selection seed, family)).
2. Within a family, the next seed is the one that covers the most workflow groups and
   professions not yet covered by what is published or ordered before it (ties by
   sha256(selection seed, seed id)).
3. A seed whose family already holds `max_per_source` (published or ordered) can never be
   selected beside them: it goes after every seed that can, in the same round-robin order.

Pure and deterministic: the same seeds and revision give the same order, whatever order the
seed folders were listed in.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from dataset_revisions.selection import rank


@dataclass(frozen=True)
class SeedFacts:
    seed_id: str
    family: str
    workflow_group: str
    profession: str


@dataclass(frozen=True)
class Published:
    """What the revision already holds, as the order sees it."""

    family: str
    workflow_group: str
    profession: str


def production_order(seeds: list[SeedFacts], published: list[Published], max_per_source: int,
                     selection_seed: int) -> list[SeedFacts]:
    held = Counter(p.family for p in published)
    covered = {("group", p.workflow_group) for p in published} | {("profession", p.profession) for p in published}
    by_family: dict[str, list[SeedFacts]] = {}
    for seed in sorted(seeds, key=lambda s: rank(selection_seed, s.seed_id)):
        by_family.setdefault(seed.family, []).append(seed)
    families = sorted(by_family, key=lambda f: (held[f], rank(selection_seed, f)))

    def gain(seed: SeedFacts) -> int:
        return len({("group", seed.workflow_group), ("profession", seed.profession)} - covered)

    useful: list[SeedFacts] = []
    surplus: list[SeedFacts] = []
    while any(by_family.values()):
        for family in families:
            left = by_family[family]
            if not left:
                continue
            best = max(left, key=gain)  # max() keeps the first of equals: the rank order
            left.remove(best)
            if held[family] < max_per_source:
                held[family] += 1
                covered.update({("group", best.workflow_group), ("profession", best.profession)})
                useful.append(best)
            else:
                surplus.append(best)
    return useful + surplus
