"""`ModelRateBudget`: the request budget every llm worker process draws on (docs/models.md).

A model key allows so many requests a minute, whichever worker sends them. One workflow per
budget name holds the token bucket (`modelapi.token_bucket.take`); a client reserves a slot with
an update (`modelapi.rate_budget.TemporalBudget`, update-with-start: the first reservation
starts it) and is told when it may send (an absolute time, so the answer's own latency does not
move the slot). Updates are handled one at a time in
arrival order, so two processes can never both take the last token. The clock is the
workflow's, so replay gives the same answers.

It ends by continue-as-new after `RESERVATIONS_PER_RUN` reservations (a short history), and
completes after `IDLE` with no reservation: an idle bucket is full, so nothing is lost.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import VersioningBehavior

with workflow.unsafe.imports_passed_through():
    from contracts.rate_budget import RESERVE, WORKFLOW, BudgetState, Reservation
    from modelapi.token_bucket import take
    from workflows.versioning import versioned

RESERVATIONS_PER_RUN = 500
IDLE = timedelta(hours=1)


@workflow.defn(name=WORKFLOW, versioning_behavior=versioned(VersioningBehavior.AUTO_UPGRADE))
class ModelRateBudget:
    @workflow.init
    def __init__(self, state: BudgetState) -> None:
        self.state = state
        self.this_run = 0

    @workflow.run
    async def run(self, state: BudgetState) -> None:
        while self.this_run < RESERVATIONS_PER_RUN:
            seen = self.this_run
            try:
                await workflow.wait_condition(lambda: self.this_run > seen, timeout=IDLE)
            except TimeoutError:
                break
        await workflow.wait_condition(workflow.all_handlers_finished)
        if self.this_run >= RESERVATIONS_PER_RUN:
            workflow.continue_as_new(self.state)

    @workflow.update(name=RESERVE)
    def reserve(self, req: Reservation) -> float:
        """When the caller may send its request: epoch seconds on the workflow's clock (the
        server's). An absolute time, so that however long the answer takes to reach the
        caller, its request keeps its slot."""
        s = self.state
        s.rate_per_minute, s.burst = req.rate_per_minute, req.burst
        now = workflow.now().timestamp()
        tokens = s.burst if s.tokens is None else s.tokens
        elapsed = 0.0 if s.last is None else now - s.last
        s.tokens, delay = take(tokens, elapsed, s.rate_per_minute, s.burst)
        s.last = now
        s.granted += 1
        self.this_run += 1
        return now + delay

    @reserve.validator
    def _valid(self, req: Reservation) -> None:
        if not req.rate_per_minute > 0 or not req.burst >= 1:
            raise ValueError(f"rate_per_minute must be > 0 and burst >= 1, got {req}")

    @workflow.query
    def status(self) -> BudgetState:
        return self.state
