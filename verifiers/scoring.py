"""Pure scoring arithmetic shared by the rule probe and the pipeline (stdlib only, no bpy).

A criterion result is a mapping with at least ``id``, ``weight``, ``score`` (0..1), ``passed``
and ``core``.  The rules (docs/contracts.md, docs/scoring.md):

* ``rule_score = sum(weight * score)`` over the rule criteria;
* ``reward = sum(weights[channel] * channel_score)`` over the channels with weight > 0;
* a channel with weight > 0 and no score makes ``reward`` null with a reason -- it is never
  renormalised onto the remaining channels;
* any failed ``core`` criterion caps ``reward`` at ``core_failure_cap``;
* ``success = reward >= pass_threshold and no core criterion failed``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

CHANNELS = ("rule", "vl", "agent")
# Scores are rounded so reports are stable text and 0.1 + 0.2 style noise never shows.
DIGITS = 6


def weighted_score(criteria: Sequence[Mapping]) -> float | None:
    """Sum of weight * score over one channel's criteria; None when the channel has none."""
    if not criteria:
        return None
    return round(sum(float(c["weight"]) * float(c["score"]) for c in criteria), DIGITS)


def core_failures(criteria: Sequence[Mapping]) -> list[str]:
    """Ids of the core criteria that did not pass, in rubric order."""
    return [c["id"] for c in criteria if c.get("core") and not c["passed"]]


def missing_channels(weights: Mapping[str, float], channel_scores: Mapping[str, float | None]) -> list[str]:
    """Channels that carry weight but have no score."""
    return [ch for ch in CHANNELS if float(weights.get(ch, 0.0)) > 0 and channel_scores.get(ch) is None]


def total_reward(
    weights: Mapping[str, float],
    channel_scores: Mapping[str, float | None],
    core_failed: Sequence[str],
    core_failure_cap: float,
) -> tuple[float | None, str | None]:
    """Weighted reward with the core cap applied, or (None, reason) when a weighted channel is unscored."""
    missing = missing_channels(weights, channel_scores)
    if missing:
        return None, "no score for weighted channel(s): " + ", ".join(missing)
    reward = sum(
        float(weights.get(ch, 0.0)) * float(channel_scores[ch])
        for ch in CHANNELS
        if float(weights.get(ch, 0.0)) > 0
    )
    if core_failed:
        reward = min(reward, float(core_failure_cap))
    return round(reward, DIGITS), None


def is_success(reward: float | None, core_failed: Sequence[str], pass_threshold: float) -> bool:
    """A null reward is never a success."""
    return reward is not None and reward >= float(pass_threshold) and not core_failed


def summarize(
    rule_criteria: Sequence[Mapping],
    verification: Mapping,
    vl_score: float | None = None,
    agent_score: float | None = None,
) -> dict:
    """The scoring fields of a probe report from the rule results and the task's ``verification``."""
    rule_score = weighted_score(rule_criteria)
    core_failed = core_failures(rule_criteria)
    scores = {"rule": rule_score, "vl": vl_score, "agent": agent_score}
    reward, reason = total_reward(
        verification["weights"], scores, core_failed, verification["core_failure_cap"]
    )
    threshold = float(verification["pass_threshold"])
    return {
        "rule_score": rule_score,
        "vl_score": vl_score,
        "core_failed": core_failed,
        "reward": reward,
        "reward_null_reason": reason,
        "success": is_success(reward, core_failed, threshold),
        "pass_threshold": threshold,
    }
