"""The `ModelRateBudget` workflow's interface (workflows/model_rate_budget.py), for its callers
(`modelapi.rate_budget.TemporalBudget`) without importing the workflow: its name, its update
and their payloads."""

from __future__ import annotations

from dataclasses import dataclass

WORKFLOW = "ModelRateBudget"
RESERVE = "reserve"  # the update: a Reservation in, the epoch second it may send out


@dataclass
class BudgetState:
    rate_per_minute: float
    burst: float
    tokens: float | None = None  # None: a full bucket
    last: float | None = None  # workflow time (epoch seconds) of the last reservation
    granted: int = 0  # over the budget's whole life, across continue-as-new


@dataclass
class Reservation:
    """The caller's configured rate: the latest one wins, so a changed ARKEVO_LLM_RPM takes
    effect on the next request."""

    rate_per_minute: float
    burst: float
    caller: str = ""
