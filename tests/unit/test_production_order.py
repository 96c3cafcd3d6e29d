"""The order DatasetProduction starts seeds in (dataset_revisions/production_order.py): source
families round-robin, the emptiest first; new coverage first within a family; a family's seeds
beyond `max_per_source` last; the same order whatever order the seeds were listed in."""

from __future__ import annotations

import random

from dataset_revisions.production_order import Published, SeedFacts, production_order


def seed(seed_id: str, family: str, group: str = "MOD", profession: str = "modeler") -> SeedFacts:
    return SeedFacts(seed_id, family, group, profession)


def families(order: list[SeedFacts]) -> list[str]:
    return [s.family for s in order]


def test_families_take_turns_so_one_large_family_does_not_fill_the_front():
    seeds = [seed(f"a{i}", "big") for i in range(5)] + [seed("b0", "small"), seed("c0", "other")]
    order = production_order(seeds, [], max_per_source=5, selection_seed=1)
    # the first round holds one seed of each family, before big's second seed
    assert sorted(families(order[:3])) == ["big", "other", "small"]
    assert families(order[3:]) == ["big"] * 4


def test_the_family_the_revision_holds_least_of_goes_first():
    seeds = [seed("a0", "held"), seed("b0", "new")]
    published = [Published("held", "MOD", "modeler")]
    for selection_seed in range(20):  # whatever the hash ties would say
        order = production_order(seeds, published, max_per_source=3, selection_seed=selection_seed)
        assert [s.seed_id for s in order] == ["b0", "a0"]


def test_seeds_a_full_family_could_never_add_go_last():
    seeds = [seed("a0", "fam-a"), seed("a1", "fam-a"), seed("a2", "fam-a"), seed("b0", "fam-b"),
             seed("b1", "fam-b")]
    published = [Published("fam-b", "MOD", "modeler")]
    order = production_order(seeds, published, max_per_source=2, selection_seed=7)
    ids = [s.seed_id for s in order]
    # fam-a may add 2, fam-b 1: those 3 first, the surplus (one of each) after them
    assert sorted(families(order[:3])) == ["fam-a", "fam-a", "fam-b"]
    assert sorted(families(order[3:])) == ["fam-a", "fam-b"]
    assert sorted(ids) == ["a0", "a1", "a2", "b0", "b1"]  # nothing lost


def test_within_a_family_a_seed_bringing_new_coverage_goes_first():
    seeds = [seed(f"m{i}", "fam", "MOD", "modeler") for i in range(4)] + [seed("x", "fam", "ANI", "animator")]
    published = [Published("elsewhere", "MOD", "modeler")]
    order = production_order(seeds, published, max_per_source=2, selection_seed=3)
    assert order[0].seed_id == "x"  # the only one covering a group and a profession not yet held


def test_the_same_seeds_listed_in_any_order_give_the_same_order():
    seeds = [seed(f"s{i}", f"fam{i % 3}", ("MOD", "ANI", "LGT")[i % 2], ("modeler", "rigger")[i % 3 % 2])
             for i in range(12)]
    published = [Published("fam1", "MOD", "modeler")]
    first = production_order(seeds, published, max_per_source=3, selection_seed=2026)
    rng = random.Random(5)
    for _ in range(10):
        shuffled = seeds[:]
        rng.shuffle(shuffled)
        assert production_order(shuffled, published, max_per_source=3, selection_seed=2026) == first
    assert sorted(s.seed_id for s in first) == sorted(s.seed_id for s in seeds)
