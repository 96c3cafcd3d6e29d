"""Request budgets: every model request waits for a slot before it is sent (docs/models.md).

* `TemporalBudget` — the llm workers' budget: one `ModelRateBudget` workflow per budget name
  holds the bucket, so the rate (ARKEVO_LLM_RPM, default 4 a minute) holds across every worker
  process and host that uses the key, not per process.
* `LocalBudget` — the same bucket inside one process: a model judge run outside Temporal
  (`python -m verifiers.score_delivery --judge model`), and tests.
* `Unlimited` — no budget: the solver agent's and the author's own endpoints.

A reservation is never handed back: a caller cancelled while it waits leaves its slot unused,
so the budget errs on the side of fewer requests, never more.
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from temporalio.client import Client, WithStartWorkflowOperation
from temporalio.common import WorkflowIDConflictPolicy

from contracts import queues
from modelapi.token_bucket import TokenBucket, limiter_from_env, rate_from_env
from contracts.rate_budget import RESERVE, WORKFLOW, BudgetState, Reservation

DEFAULT_BUDGET = "arkevo-llm"


class Budget(Protocol):
    async def acquire(self) -> float:
        """Wait for a slot; returns the seconds waited."""
        ...


class Unlimited:
    async def acquire(self) -> float:
        return 0.0


class LocalBudget:
    def __init__(self, bucket: TokenBucket | None = None) -> None:
        self.bucket = bucket or limiter_from_env()

    async def acquire(self) -> float:
        return await self.bucket.acquire()


def budget_workflow_id(name: str) -> str:
    return f"model-rate-budget/{name}"


class TemporalBudget:
    """Reserve through the `ModelRateBudget` workflow (started by the first reservation, on the
    control queue unless told otherwise), then sleep as long as it says."""

    def __init__(self, client: Client, name: str = DEFAULT_BUDGET, *, rate_per_minute: float | None = None,
                 burst: float | None = None, task_queue: str = queues.CONTROL,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        env_rate, env_burst = rate_from_env()
        self.client, self.name, self.task_queue = client, name, task_queue
        self.rate_per_minute = rate_per_minute or env_rate
        self.burst = burst or env_burst
        self.caller = f"{socket.gethostname()}:{os.getpid()}"
        self._sleep = sleep

    async def reserve(self) -> float:
        """Seconds to wait before sending (0: now): the slot's time less this host's clock,
        which is assumed synchronised with the Temporal server's (NTP)."""
        state = BudgetState(self.rate_per_minute, self.burst)
        start: WithStartWorkflowOperation[Any, Any] = WithStartWorkflowOperation(
            WORKFLOW, state, id=budget_workflow_id(self.name), task_queue=self.task_queue,
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING)
        not_before = await self.client.execute_update_with_start_workflow(
            RESERVE, Reservation(self.rate_per_minute, self.burst, self.caller),
            start_workflow_operation=start, result_type=float)
        return max(0.0, not_before - time.time())

    async def acquire(self) -> float:
        delay = await self.reserve()
        if delay > 0:
            await self._sleep(delay)
        return delay
