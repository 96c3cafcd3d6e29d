"""The figures of an evaluation campaign, computed so a reviewer can recompute them by hand.

Everything here is pure standard library on purpose: a campaign report should be checkable
with a pocket calculator and the Python docs, not with a particular numpy build.

* Per-task scores (``task_score``): avg@k over the scored attempts, pass@k that says
  "undetermined" instead of guessing when an infra exception left fewer than k scored attempts.
* Confidence intervals (``bootstrap_mean``): a percentile bootstrap driven by
  ``random.Random(seed)``, so the same seed and values always give the same bounds, with a
  stated percentile rule (nearest rank, below).
* Paired comparison (``compare``): win/tie/loss on per-task averages, an *exact* two-sided
  McNemar test on pass@k (``mcnemar_exact``, computed in exact fractions), and a bootstrap
  interval on the mean per-task difference.
* Pooling guard (``check_comparable``, ``group_by_profile``): figures from different verifier
  versions or scoring profiles are never pooled.

Nothing is rounded here; callers round for display.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass
from fractions import Fraction

__all__ = [
    "TIE_TOLERANCE",
    "TaskScore",
    "task_score",
    "Interval",
    "bootstrap_mean",
    "percentile_index",
    "mcnemar_exact",
    "Comparison",
    "compare",
    "ConfigFigures",
    "config_figures",
    "IncomparableFigures",
    "check_comparable",
    "group_by_profile",
]

#: Two per-task averages closer than this are a tie.
TIE_TOLERANCE = 1e-9


def _mean(values: list[float]) -> float:
    """Arithmetic mean via ``math.fsum`` (correctly rounded sum, then one division)."""
    return math.fsum(values) / len(values)


# --------------------------------------------------------------------------- per-task score


@dataclass(frozen=True)
class TaskScore:
    """One (task, config): ``k`` attempts planned, ``scored`` of them produced a reward."""

    k: int
    scored: int
    missing: int
    avg: float | None
    passed: float | None

    def as_dict(self) -> dict:
        return asdict(self)


def task_score(rewards: list[float | None], successes: list[bool | None], k: int) -> TaskScore:
    """Score the attempts that exist for one (task, config).

    An attempt whose reward is ``None`` was not scored (infra exception) and counts in
    ``missing``, never as a zero. ``avg`` is the mean of the scored rewards (``None`` if none).
    ``passed`` (pass@k) is 1.0 if any scored attempt succeeded, 0.0 if all k attempts were
    scored and none succeeded, and ``None`` otherwise: an unscored attempt might have passed.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if len(rewards) != len(successes):
        raise ValueError(
            f"rewards and successes differ in length ({len(rewards)} != {len(successes)})")
    if len(rewards) > k:
        raise ValueError(f"{len(rewards)} attempts given for k={k}")
    scored_pairs = [(r, s) for r, s in zip(rewards, successes) if r is not None]
    scored = len(scored_pairs)
    avg = _mean([float(r) for r, _ in scored_pairs]) if scored else None
    if any(s is True for _, s in scored_pairs):
        passed: float | None = 1.0
    elif scored == k:
        passed = 0.0
    else:
        passed = None
    return TaskScore(k=k, scored=scored, missing=k - scored, avg=avg, passed=passed)


# --------------------------------------------------------------------------- bootstrap


@dataclass(frozen=True)
class Interval:
    """A mean with a percentile-bootstrap interval; ``None`` bounds when there were no values."""

    mean: float | None
    low: float | None
    high: float | None
    n: int
    samples: int
    seed: int
    level: float

    def as_dict(self) -> dict:
        return asdict(self)


def percentile_index(q: Fraction, samples: int) -> int:
    """Nearest-rank rule: index ``ceil(q * samples) - 1`` into the sorted resampled means,
    clamped to ``[0, samples - 1]``. ``q`` is an exact fraction, so 0.025 * 2000 is exactly 50
    (index 49), not 50.00000000000004 (which would round up to index 50)."""
    return min(max(math.ceil(q * samples) - 1, 0), samples - 1)


def _level_fraction(level: float) -> Fraction:
    # Fraction(str(0.95)) == 95/100 exactly; Fraction(0.95) would carry the binary error.
    return Fraction(repr(float(level)))


def bootstrap_mean(values: list[float], *, seed: int, samples: int = 2000,
                   level: float = 0.95) -> Interval:
    """Percentile bootstrap of the mean.

    Procedure (reproducible by hand): ``rng = random.Random(seed)``; for each of ``samples``
    resamples draw ``n`` indices with ``rng.randrange(n)`` and take the mean of those values
    (``math.fsum(...) / n``); sort the ``samples`` means; ``low`` is the element at
    ``percentile_index((1 - level) / 2, samples)`` and ``high`` the element at
    ``percentile_index(1 - (1 - level) / 2, samples)``, with ``level`` read as the exact
    decimal it is written as (0.95 -> 95/100). ``mean`` is the plain arithmetic mean of
    ``values``. With no values everything is ``None``; with one value ``low == high == mean``
    (no randomness is drawn).
    """
    if samples < 1:
        raise ValueError(f"samples must be at least 1, got {samples}")
    if not 0 < level < 1:
        raise ValueError(f"level must be strictly between 0 and 1, got {level}")
    vals = [float(v) for v in values]
    n = len(vals)
    if n == 0:
        return Interval(mean=None, low=None, high=None, n=0, samples=samples, seed=seed,
                        level=level)
    mean = _mean(vals)
    if n == 1:
        return Interval(mean=mean, low=mean, high=mean, n=1, samples=samples, seed=seed,
                        level=level)
    rng = random.Random(seed)
    means = sorted(_mean([vals[rng.randrange(n)] for _ in range(n)]) for _ in range(samples))
    tail = (1 - _level_fraction(level)) / 2
    low = means[percentile_index(tail, samples)]
    high = means[percentile_index(1 - tail, samples)]
    return Interval(mean=mean, low=low, high=high, n=n, samples=samples, seed=seed, level=level)


# --------------------------------------------------------------------------- McNemar


def mcnemar_exact(b: int, c: int) -> float:
    """Exact two-sided McNemar p-value on the ``n = b + c`` discordant pairs.

    ``p = min(1, 2 * sum_{i=0..min(b,c)} C(n, i) / 2**n)``, computed in exact fractions and
    converted to float once; ``n == 0`` gives 1.0.
    """
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be non-negative, got b={b}, c={c}")
    n = b + c
    if n == 0:
        return 1.0
    tail = Fraction(sum(math.comb(n, i) for i in range(min(b, c) + 1)), 2 ** n)
    return float(min(Fraction(1), 2 * tail))


# --------------------------------------------------------------------------- paired comparison


@dataclass(frozen=True)
class Comparison:
    """Config ``a`` against config ``b`` on the tasks both were scored on."""

    a: str
    b: str
    tasks: int
    wins: int
    ties: int
    losses: int
    a_only_pass: int
    b_only_pass: int
    both_pass: int
    neither_pass: int
    mcnemar_tasks: int
    mcnemar_p: float
    mean_difference: Interval

    def as_dict(self) -> dict:
        return asdict(self)


def compare(a: str, scores_a: dict[str, TaskScore], b: str, scores_b: dict[str, TaskScore], *,
            seed: int, samples: int = 2000) -> Comparison:
    """Pair ``a`` and ``b`` on the task ids present in both.

    Win/tie/loss on ``avg`` (A − B; ``|d| <= TIE_TOLERANCE`` is a tie) over tasks where both
    averages exist (``tasks``). McNemar on tasks where both pass@k are determined
    (``mcnemar_tasks``). ``mean_difference`` bootstraps the per-task differences A − B taken in
    sorted task-id order.
    """
    shared = sorted(set(scores_a) & set(scores_b))
    diffs: list[float] = []
    wins = ties = losses = 0
    a_only = b_only = both = neither = 0
    for task_id in shared:
        sa, sb = scores_a[task_id], scores_b[task_id]
        if sa.avg is not None and sb.avg is not None:
            d = sa.avg - sb.avg
            diffs.append(d)
            if abs(d) <= TIE_TOLERANCE:
                ties += 1
            elif d > 0:
                wins += 1
            else:
                losses += 1
        if sa.passed is not None and sb.passed is not None:
            pa, pb = sa.passed >= 1.0, sb.passed >= 1.0
            if pa and pb:
                both += 1
            elif pa:
                a_only += 1
            elif pb:
                b_only += 1
            else:
                neither += 1
    return Comparison(
        a=a, b=b, tasks=len(diffs), wins=wins, ties=ties, losses=losses,
        a_only_pass=a_only, b_only_pass=b_only, both_pass=both, neither_pass=neither,
        mcnemar_tasks=a_only + b_only + both + neither,
        mcnemar_p=mcnemar_exact(a_only, b_only),
        mean_difference=bootstrap_mean(diffs, seed=seed, samples=samples),
    )


# --------------------------------------------------------------------------- per-config figures


@dataclass(frozen=True)
class ConfigFigures:
    """The headline figures of one solver configuration over the campaign's tasks."""

    config: str
    tasks: int
    avg_at_k: Interval
    pass_at_k: Interval
    reward_delta: Interval
    scored: int
    missing: int
    undetermined_pass: int

    def as_dict(self) -> dict:
        return asdict(self)


def config_figures(config: str, scores: dict[str, TaskScore],
                   input_rewards: dict[str, float | None], *, seed: int,
                   samples: int = 2000) -> ConfigFigures:
    """avg@k, pass@k and reward delta (avg − input reward) for one config, each bootstrapped
    over the tasks (sorted task-id order) where the figure exists. A task absent from
    ``input_rewards`` has no input reward. ``undetermined_pass`` counts tasks whose pass@k is
    ``None``."""
    order = sorted(scores)
    avgs = [a for t in order if (a := scores[t].avg) is not None]
    passes = [p for t in order if (p := scores[t].passed) is not None]
    deltas = []
    for t in order:
        avg, base = scores[t].avg, input_rewards.get(t)
        if avg is not None and base is not None:
            deltas.append(avg - base)
    return ConfigFigures(
        config=config,
        tasks=len(scores),
        avg_at_k=bootstrap_mean(avgs, seed=seed, samples=samples),
        pass_at_k=bootstrap_mean(passes, seed=seed, samples=samples),
        reward_delta=bootstrap_mean(deltas, seed=seed, samples=samples),
        scored=sum(s.scored for s in scores.values()),
        missing=sum(s.missing for s in scores.values()),
        undetermined_pass=sum(1 for s in scores.values() if s.passed is None),
    )


# --------------------------------------------------------------------------- pooling guard


class IncomparableFigures(ValueError):
    """Records from different verifier versions or scoring profiles were about to be pooled."""


def _profile_key(record: dict) -> str:
    profile = record["scoring_profile"]
    return f"{profile['profile_id']}@{profile['profile_version']}"


def check_comparable(records: list[dict]) -> None:
    """Refuse to pool: every task's records must share one ``verifier_version``, and all
    records must share one scoring profile (``id@version``). Group by profile first
    (``group_by_profile``) when a campaign spans several."""
    versions: dict[str, str] = {}
    for record in records:
        task_id, version = record["task_id"], record["verifier_version"]
        seen = versions.setdefault(task_id, version)
        if seen != version:
            raise IncomparableFigures(
                f"task {task_id!r} has records from verifier versions {seen!r} and {version!r};"
                " figures from different verifier versions are never pooled")
    first: str | None = None
    for record in records:
        key = _profile_key(record)
        if first is None:
            first = key
        elif key != first:
            raise IncomparableFigures(
                f"records span scoring profiles {first!r} and {key!r};"
                " group by profile before computing figures")


def group_by_profile(records: list[dict]) -> dict[str, list[dict]]:
    """Records keyed by scoring profile ``"id@version"``, first-seen key order, record order
    preserved within each group."""
    groups: dict[str, list[dict]] = {}
    for record in records:
        groups.setdefault(_profile_key(record), []).append(record)
    return groups
