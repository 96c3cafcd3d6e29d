"""avg@k / pass@k / reward_delta, with infra exceptions kept out of every mean."""

from __future__ import annotations

import pytest

from activities.evaluation import config_metrics
from contracts.payloads.trials import TrialOutcome


def outcome(policy, reward, success, exception=None):
    return TrialOutcome(trial_id=f"{policy}-{reward}", policy=policy, stage="evaluation",
                        attempt=1, reward=reward, success=success, verifier_version="vv1-x",
                        exception=exception)


def test_avg_and_pass_at_k():
    outs = [outcome("a", 0.2, False), outcome("a", 0.9, True), outcome("a", 0.4, False),
            outcome("b", 0.1, False)]
    m = config_metrics("a", 3, outs, input_reward=0.1)
    assert m.avg_at_k == pytest.approx(0.5) and m.pass_at_k == 1.0
    assert m.reward_delta == pytest.approx(0.4) and (m.scored, m.exceptions) == (3, 0)
    assert config_metrics("b", 3, outs, input_reward=None).reward_delta is None


def test_infra_exception_is_reported_not_scored_zero():
    outs = [outcome("a", 0.8, True),
            outcome("a", None, None, {"type": "BlenderProcessError", "message": "crashed"})]
    m = config_metrics("a", 2, outs, input_reward=0.0)
    assert m.avg_at_k == pytest.approx(0.8)  # not 0.4: the crash is not a 0
    assert (m.scored, m.exceptions) == (1, 1)


CRASHED = {"type": "BlenderProcessError", "message": "crashed"}


@pytest.mark.parametrize("attempts,expected", [
    ([(0.8, True), (None, None)], 1.0),  # one scored attempt passed: passed, whatever the other
    ([(0.2, False), (0.3, False), (None, None)], None),  # the lost one might have passed
    ([(0.2, False), (0.3, False)], None),  # k=3 planned, only 2 recorded: undetermined too
    ([(0.2, False), (0.3, False), (0.1, False)], 0.0),  # all k scored, none passed
])
def test_pass_at_k_is_campaigns_definition_with_missing_attempts(attempts, expected):
    """Stage 06 and campaign reports give one pass@k: undetermined, never 0, while an attempt
    that might have passed is missing."""
    from campaigns.statistics import task_score

    outs = [outcome("a", r, s, None if r is not None else CRASHED) for r, s in attempts]
    m = config_metrics("a", 3, outs, input_reward=0.0)
    assert m.pass_at_k == expected
    assert m.pass_at_k == task_score([r for r, _ in attempts], [s for _, s in attempts], 3).passed


def test_all_attempts_broken_gives_no_metric():
    outs = [outcome("a", None, None, {"type": "X", "message": "y"})]
    m = config_metrics("a", 1, outs, input_reward=0.3)
    assert m.avg_at_k is None and m.pass_at_k is None and m.reward_delta is None
