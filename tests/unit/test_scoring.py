"""The pure scoring arithmetic of verifiers/scoring.py (no Blender)."""

from __future__ import annotations

import pytest

from verifiers import scoring

RULE_ONLY = {"weights": {"rule": 1.0, "vl": 0.0, "agent": 0}, "pass_threshold": 0.7, "core_failure_cap": 0.4}


def crit(cid: str, weight: float, score: float, core: bool = False, passed: bool | None = None) -> dict:
    return {"id": cid, "weight": weight, "score": score, "core": core,
            "passed": score == 1.0 if passed is None else passed}


def test_weighted_score_sums_weight_times_score():
    assert scoring.weighted_score([crit("C01", 0.25, 1.0), crit("C02", 0.75, 0.5)]) == 0.625


def test_weighted_score_of_no_criteria_is_none():
    assert scoring.weighted_score([]) is None


def test_weighted_score_is_rounded_against_float_noise():
    assert scoring.weighted_score([crit("a", 0.1, 1.0), crit("b", 0.2, 1.0)]) == 0.3


def test_core_failures_lists_only_failed_core_criteria_in_order():
    criteria = [crit("C01", 0.2, 0.0, core=True), crit("C02", 0.2, 0.0), crit("C03", 0.6, 0.9, core=True)]
    assert scoring.core_failures(criteria) == ["C01", "C03"]


def test_rule_only_reward_equals_rule_score():
    report = scoring.summarize([crit("C01", 0.6, 1.0), crit("C02", 0.4, 1.0)], RULE_ONLY)
    assert report["rule_score"] == 1.0
    assert report["reward"] == 1.0
    assert report["reward_null_reason"] is None
    assert report["vl_score"] is None
    assert report["success"] is True
    assert report["pass_threshold"] == 0.7


def test_core_failure_caps_reward_and_fails():
    criteria = [crit("C01", 0.8, 1.0), crit("C02", 0.2, 0.0, core=True)]
    report = scoring.summarize(criteria, RULE_ONLY)
    assert report["rule_score"] == 0.8
    assert report["reward"] == 0.4
    assert report["core_failed"] == ["C02"]
    assert report["success"] is False


def test_core_cap_does_not_raise_a_lower_reward():
    criteria = [crit("C01", 0.9, 0.0), crit("C02", 0.1, 0.0, core=True)]
    assert scoring.summarize(criteria, RULE_ONLY)["reward"] == 0.0


def test_partial_core_score_still_counts_as_failed_when_not_passed():
    criteria = [crit("C01", 0.5, 1.0), crit("C02", 0.5, 0.9, core=True)]
    report = scoring.summarize(criteria, RULE_ONLY)
    assert report["core_failed"] == ["C02"]
    assert report["reward"] == 0.4


def test_reward_below_threshold_is_not_success_even_without_core_failure():
    report = scoring.summarize([crit("C01", 0.5, 1.0), crit("C02", 0.5, 0.0)], RULE_ONLY)
    assert report["reward"] == 0.5
    assert report["success"] is False


def test_reward_exactly_at_threshold_is_success():
    report = scoring.summarize([crit("C01", 0.7, 1.0), crit("C02", 0.3, 0.0)], RULE_ONLY)
    assert report["reward"] == 0.7
    assert report["success"] is True


def test_weighted_vl_channel_without_score_makes_reward_null():
    verification = {**RULE_ONLY, "weights": {"rule": 0.8, "vl": 0.2, "agent": 0}}
    report = scoring.summarize([crit("C01", 1.0, 1.0)], verification)
    assert report["reward"] is None
    assert "vl" in report["reward_null_reason"]
    assert report["rule_score"] == 1.0  # still reported, never renormalised into the reward
    assert report["success"] is False


def test_weighted_vl_channel_with_score_is_blended():
    verification = {**RULE_ONLY, "weights": {"rule": 0.8, "vl": 0.2, "agent": 0}}
    report = scoring.summarize([crit("C01", 1.0, 1.0)], verification, vl_score=0.5)
    assert report["reward"] == 0.9
    assert report["vl_score"] == 0.5
    assert report["success"] is True


def test_rule_channel_with_weight_but_no_criteria_makes_reward_null():
    verification = {**RULE_ONLY, "weights": {"rule": 0.5, "vl": 0.5, "agent": 0}}
    reward, reason = scoring.total_reward(verification["weights"], {"rule": None, "vl": 1.0}, [], 0.4)
    assert reward is None
    assert "rule" in reason


def test_null_reward_is_never_success():
    assert scoring.is_success(None, [], 0.0) is False


@pytest.mark.parametrize("reward,core_failed,expected", [(0.9, [], True), (0.9, ["C01"], False), (0.69, [], False)])
def test_is_success(reward, core_failed, expected):
    assert scoring.is_success(reward, core_failed, 0.7) is expected
