"""The campaign's circuit breaker rule (docs/campaigns.md "Circuit breaker"), pure: the workflow
keeps the finished trials since the last resume and asks whether the breaker trips.

A dead sandbox pool or endpoint turns every trial into an infrastructure exception after its
retries; without the breaker a campaign would burn through its whole plan that way. Only
infrastructure exceptions count: a graded attempt (a solver's 0 included) and a trial that
failed for its author's script are the task's or the solver's, not the infrastructure's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Finished:
    trial_id: str
    infra: str | None  # why it is an infrastructure exception; None: it is not one


def breaker_problem(failures: int, window: int) -> str | None:
    """Why (failures, window) is not a breaker setting; None when it is (failures 0: off)."""
    if failures < 0 or window < 0:
        return f"breaker {failures} of {window}: counts are 0 or more"
    if failures > 0 and not 1 <= failures <= window:
        return f"breaker {failures} of {window}: failures must be between 1 and the window (or 0: off)"
    return None


def tripped(finished: Sequence[Finished], failures: int, window: int) -> list[Finished] | None:
    """The infrastructure exceptions among the last `window` finished trials when there are
    `failures` or more of them (the breaker trips), else None. failures 0: never."""
    if failures <= 0:
        return None
    infra = [f for f in finished[-window:] if f.infra is not None]
    return infra if len(infra) >= failures else None


def pause_reason(infra: Sequence[Finished], failures: int, window: int) -> str:
    """One line for `progress`, the CLI and the logs."""
    return (f"circuit breaker: {len(infra)} of the last {window} finished trials are "
            f"infrastructure exceptions (limit {failures}): "
            + "; ".join(f"{f.trial_id}: {f.infra}" for f in infra))
