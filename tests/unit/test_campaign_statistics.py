"""Campaign figures: exact McNemar, undetermined pass@k, seeded bootstrap, pooling guard."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from campaigns.statistics import (
    IncomparableFigures,
    Interval,
    TaskScore,
    bootstrap_mean,
    check_comparable,
    compare,
    config_figures,
    group_by_profile,
    mcnemar_exact,
    percentile_index,
    task_score,
)

# --------------------------------------------------------------------------- McNemar


def test_mcnemar_known_table():
    # n = 10, min = 1: 2 * (C(10,0) + C(10,1)) / 2**10 = 2 * 11 / 1024 = 0.021484375 (exact)
    assert mcnemar_exact(1, 9) == 0.021484375
    assert mcnemar_exact(9, 1) == 0.021484375  # symmetric


def test_mcnemar_edges():
    # b == c: the sum reaches past the middle, 2 * tail > 1 -> clamped to 1
    assert mcnemar_exact(3, 3) == 1.0
    assert mcnemar_exact(0, 0) == 1.0  # no discordant pairs
    # n = 5, min = 0: 2 * C(5,0) / 32 = 2/32 = 0.0625
    assert mcnemar_exact(0, 5) == 0.0625
    assert mcnemar_exact(5, 0) == 0.0625
    # n = 2, min = 0: 2 * 1/4 = 0.5
    assert mcnemar_exact(2, 0) == 0.5
    for b, c in [(1, 9), (4, 7), (0, 3), (12, 2)]:
        assert mcnemar_exact(b, c) == mcnemar_exact(c, b)


def test_mcnemar_negative_raises():
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 3)
    with pytest.raises(ValueError):
        mcnemar_exact(2, -1)


# --------------------------------------------------------------------------- task_score


def test_task_score_infra_exception_not_scored_but_pass_found():
    s = task_score([0.5, None, 1.0], [False, None, True], k=3)
    # scored: 0.5 and 1.0 -> avg (0.5 + 1.0) / 2 = 0.75; one scored success -> passed 1.0
    assert (s.k, s.scored, s.missing) == (3, 2, 1)
    assert s.avg == 0.75 and s.passed == 1.0
    assert s.as_dict() == {"k": 3, "scored": 2, "missing": 1, "avg": 0.75, "passed": 1.0}


def test_task_score_undetermined_pass():
    s = task_score([0.2, None, 0.4], [False, None, False], k=3)
    # only 2 of 3 scored, none passed: the unscored attempt might have -> None
    assert s.passed is None
    assert s.avg == pytest.approx(0.3)  # (0.2 + 0.4) / 2
    assert (s.scored, s.missing) == (2, 1)


def test_task_score_fewer_attempts_than_k_is_missing():
    s = task_score([0.2], [False], k=3)
    assert (s.scored, s.missing, s.passed) == (1, 2, None)


def test_task_score_all_scored_none_passed():
    s = task_score([0.2, 0.3, 0.4], [False, False, False], k=3)
    assert s.passed == 0.0
    assert s.avg == pytest.approx(0.3)  # 0.9 / 3
    assert (s.scored, s.missing) == (3, 0)


def test_task_score_nothing_scored():
    s = task_score([None, None, None], [None, None, None], k=3)
    assert (s.avg, s.passed, s.scored, s.missing) == (None, None, 0, 3)


def test_task_score_rejects_bad_input():
    with pytest.raises(ValueError):
        task_score([0.1, 0.2, 0.3], [False, False, False], k=2)  # 3 attempts for k=2
    with pytest.raises(ValueError):
        task_score([0.1, 0.2], [False], k=2)  # lengths differ


# --------------------------------------------------------------------------- bootstrap

SPREAD = [0.0, 0.1, 0.5, 0.9, 1.0, 0.3, 0.7, 0.05]


def test_bootstrap_same_seed_is_identical():
    first = bootstrap_mean(SPREAD, seed=11)
    again = bootstrap_mean(SPREAD, seed=11)
    assert first == again
    assert first.as_dict() == again.as_dict()
    assert (first.n, first.samples, first.seed, first.level) == (8, 2000, 11, 0.95)


def test_bootstrap_different_seed_moves_bounds():
    # irregular values (i**1.5 / 7): resampled means almost never coincide, so two seeds
    # landing on identical percentile elements would be a coincidence
    spread = [i ** 1.5 / 7 for i in range(1, 21)]
    one = bootstrap_mean(spread, seed=1)
    two = bootstrap_mean(spread, seed=2)
    assert one.mean == two.mean  # the point estimate does not depend on the seed
    assert (one.low, one.high) != (two.low, two.high)


def test_bootstrap_mean_is_arithmetic_mean():
    # 0+0.1+0.5+0.9+1.0+0.3+0.7+0.05 = 3.55; / 8 = 0.44375
    assert bootstrap_mean(SPREAD, seed=3).mean == pytest.approx(0.44375)
    # [0,0,1,1,1]: 3/5 = 0.6
    iv = bootstrap_mean([0, 0, 1, 1, 1], seed=5)
    assert iv.mean == pytest.approx(0.6)
    assert iv.low <= iv.mean <= iv.high
    assert iv.low < iv.high  # 5 values of two kinds: resampled means spread out


def test_bootstrap_constant_and_tiny():
    c = bootstrap_mean([0.4] * 6, seed=9)
    assert c.low == c.high == c.mean == pytest.approx(0.4)
    one = bootstrap_mean([0.7], seed=9)
    assert (one.mean, one.low, one.high, one.n) == (0.7, 0.7, 0.7, 1)
    empty = bootstrap_mean([], seed=9)
    assert empty == Interval(mean=None, low=None, high=None, n=0, samples=2000, seed=9,
                             level=0.95)


def test_percentile_rule_is_nearest_rank():
    # level 0.95, 2000 samples: tail 1/40 -> ceil(2000/40) - 1 = 49; upper 39/40 -> 1950 - 1
    assert percentile_index(Fraction(1, 40), 2000) == 49
    assert percentile_index(Fraction(39, 40), 2000) == 1949
    # clamps: q = 0 -> 0, q = 1 -> last
    assert percentile_index(Fraction(0), 10) == 0
    assert percentile_index(Fraction(1), 10) == 9


@pytest.mark.parametrize("samples,level,lo_idx,hi_idx", [
    (2000, 0.95, 49, 1949),   # ceil(0.025*2000)-1 = 49, ceil(0.975*2000)-1 = 1949
    (200, 0.9, 9, 189),       # ceil(0.05*200)-1 = 9,    ceil(0.95*200)-1 = 189
    (99, 0.8, 9, 89),         # ceil(0.1*99)=ceil(9.9)=10 -> 9, ceil(0.9*99)=ceil(89.1)=90 -> 89
])
def test_bootstrap_bounds_match_independent_reimplementation(samples, level, lo_idx, hi_idx):
    seed = 42
    rng = random.Random(seed)
    n = len(SPREAD)
    means = sorted(math.fsum(SPREAD[rng.randrange(n)] for _ in range(n)) / n
                   for _ in range(samples))
    iv = bootstrap_mean(SPREAD, seed=seed, samples=samples, level=level)
    assert iv.low == means[lo_idx]
    assert iv.high == means[hi_idx]


# --------------------------------------------------------------------------- compare


def ts(avg, passed, k=3):
    scored = 0 if avg is None else k
    return TaskScore(k=k, scored=scored, missing=k - scored, avg=avg, passed=passed)


def test_compare_paired_counts_mcnemar_and_mean_difference():
    scores_a = {
        "t1": ts(0.8, 1.0),   # vs 0.5/0.0: win  (+0.3), A only passes
        "t2": ts(0.9, 1.0),   # vs 0.4/0.0: win  (+0.5), A only passes
        "t3": ts(0.5, 1.0),   # vs 0.5/1.0: tie  ( 0.0), both pass
        "t4": ts(0.2, 0.0),   # vs 0.6/0.0: loss (-0.4), neither passes
        "t6": ts(0.7, 1.0),   # B scored nothing: out of both tallies
        "t5": ts(1.0, 1.0),   # only in A: not paired
    }
    scores_b = {
        "t1": ts(0.5, 0.0),
        "t2": ts(0.4, 0.0),
        "t3": ts(0.5, 1.0),
        "t4": ts(0.6, 0.0),
        "t6": ts(None, None),
        "t9": ts(0.1, 0.0),   # only in B
    }
    cmp = compare("A", scores_a, "B", scores_b, seed=7, samples=500)
    assert (cmp.a, cmp.b) == ("A", "B")
    assert (cmp.tasks, cmp.wins, cmp.ties, cmp.losses) == (4, 2, 1, 1)
    assert (cmp.a_only_pass, cmp.b_only_pass, cmp.both_pass, cmp.neither_pass) == (2, 0, 1, 1)
    assert cmp.mcnemar_tasks == 4
    assert cmp.mcnemar_p == 0.5  # n = 2, min = 0: 2 * C(2,0) / 4
    # (0.3 + 0.5 + 0.0 - 0.4) / 4 = 0.1
    assert cmp.mean_difference.mean == pytest.approx(0.1)
    assert cmp.mean_difference.n == 4 and cmp.mean_difference.samples == 500
    # same seed, same differences in sorted task-id order -> the same interval
    diffs = [0.8 - 0.5, 0.9 - 0.4, 0.5 - 0.5, 0.2 - 0.6]
    assert cmp.mean_difference == bootstrap_mean(diffs, seed=7, samples=500)
    d = cmp.as_dict()
    assert d["mean_difference"]["n"] == 4 and d["mcnemar_p"] == 0.5


def test_compare_reversed_is_mirror():
    a = {"t1": ts(0.9, 1.0), "t2": ts(0.1, 0.0)}
    b = {"t1": ts(0.2, 0.0), "t2": ts(0.1 + 1e-12, 0.0)}  # within tolerance -> tie
    ab = compare("A", a, "B", b, seed=1, samples=100)
    ba = compare("B", b, "A", a, seed=1, samples=100)
    assert (ab.wins, ab.ties, ab.losses) == (1, 1, 0)
    assert (ba.wins, ba.ties, ba.losses) == (0, 1, 1)
    assert (ab.a_only_pass, ba.b_only_pass) == (1, 1)
    assert ab.mcnemar_p == ba.mcnemar_p == 1.0  # n = 1: 2 * 1/2 = 1


# --------------------------------------------------------------------------- config_figures


def test_config_figures_with_missing_attempts():
    scores = {
        "t1": task_score([0.5, 1.0], [False, True], k=2),    # avg 0.75, passed 1.0
        "t2": task_score([0.2, None], [False, None], k=2),   # avg 0.2, passed None (1 missing)
        "t3": task_score([0.0, 0.4], [False, False], k=2),   # avg 0.2, passed 0.0
    }
    inputs = {"t1": 0.25, "t2": 0.1, "t3": None}
    f = config_figures("cfg", scores, inputs, seed=3, samples=300)
    assert f.config == "cfg" and f.tasks == 3
    assert (f.scored, f.missing, f.undetermined_pass) == (5, 1, 1)
    # avg@k: (0.75 + 0.2 + 0.2) / 3 = 1.15 / 3
    assert f.avg_at_k.mean == pytest.approx(1.15 / 3) and f.avg_at_k.n == 3
    # pass@k over determined tasks only: (1.0 + 0.0) / 2 = 0.5
    assert f.pass_at_k.mean == 0.5 and f.pass_at_k.n == 2
    # delta: t1 0.75 - 0.25 = 0.5, t2 0.2 - 0.1 = 0.1, t3 has no input -> (0.5 + 0.1) / 2 = 0.3
    assert f.reward_delta.mean == pytest.approx(0.3) and f.reward_delta.n == 2
    assert f.reward_delta == bootstrap_mean([0.75 - 0.25, 0.2 - 0.1], seed=3, samples=300)
    assert f.as_dict()["avg_at_k"]["seed"] == 3


# --------------------------------------------------------------------------- pooling guard


def rec(task_id, verifier="vv1", profile=("default", 1)):
    return {"task_id": task_id, "verifier_version": verifier,
            "scoring_profile": {"profile_id": profile[0], "profile_version": profile[1]}}


def test_check_comparable_rejects_two_verifier_versions():
    records = [rec("task-a", "vv1-abc"), rec("task-b", "vv2-def"), rec("task-a", "vv2-def")]
    with pytest.raises(IncomparableFigures) as info:
        check_comparable(records)
    msg = str(info.value)
    assert "task-a" in msg and "vv1-abc" in msg and "vv2-def" in msg
    assert isinstance(info.value, ValueError)


def test_check_comparable_rejects_two_profiles():
    records = [rec("t1", profile=("strict", 2)), rec("t2", profile=("lenient", 1))]
    with pytest.raises(IncomparableFigures) as info:
        check_comparable(records)
    assert "strict@2" in str(info.value) and "lenient@1" in str(info.value)
    # same id, different version is also a different profile
    with pytest.raises(IncomparableFigures, match="strict@3"):
        check_comparable([rec("t1", profile=("strict", 2)), rec("t1", profile=("strict", 3))])


def test_check_comparable_accepts_clean_set():
    # different tasks may carry different verifier versions; one task, one version
    check_comparable([rec("t1", "vv1"), rec("t1", "vv1"), rec("t2", "vv9")])
    check_comparable([])


def test_group_by_profile_preserves_order():
    r1, r2, r3, r4 = (rec("t1", profile=("b", 1)), rec("t2", profile=("a", 2)),
                      rec("t3", profile=("b", 1)), rec("t4", profile=("a", 2)))
    groups = group_by_profile([r1, r2, r3, r4])
    assert list(groups) == ["b@1", "a@2"]
    assert groups["b@1"] == [r1, r3] and groups["a@2"] == [r2, r4]
    for group in groups.values():
        check_comparable(group)


def test_a_campaign_may_span_profiles_but_never_pools_verifier_versions():
    from campaigns.report import check_against_plan

    # the demo's candidates campaign: tasks under two profiles, each graded as planned
    plan = {"tasks": [{"task_id": "t1", "verifier_version": "vv1"}, {"task_id": "t2", "verifier_version": "vv2"}]}
    records = [{**rec("t1", "vv1", ("blender-70-30", 2)), "trial_id": "c.t1.oracle.1"},
               {**rec("t2", "vv2", ("kuka-80-20", 1)), "trial_id": "c.t2.oracle.1"}]
    check_against_plan(plan, records)  # grouped by profile, not refused
    with pytest.raises(IncomparableFigures, match="vv3"):
        check_against_plan(plan, [*records, {**rec("t1", "vv3", ("blender-70-30", 2)), "trial_id": "c.t1.nop.1"}])
