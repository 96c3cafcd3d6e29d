"""The `ModelRateBudget` workflow on its own (docs/models.md): callers are answered in order
from one bucket, a changed rate takes effect on the next reservation, bad rates are refused
without touching the bucket, and the bucket's state survives continue-as-new."""

from __future__ import annotations

import pytest
from temporalio.client import WorkflowUpdateFailedError
from temporalio.worker import Worker

from contracts import queues
from modelapi.rate_budget import TemporalBudget, budget_workflow_id
from contracts.rate_budget import Reservation
from workflows.model_rate_budget import RESERVATIONS_PER_RUN, ModelRateBudget

pytestmark = pytest.mark.temporal


async def test_reservations_queue_behind_each_other_and_the_latest_rate_wins(env):
    async with Worker(env.client, task_queue=queues.CONTROL, workflows=[ModelRateBudget]):
        slow = TemporalBudget(env.client, "order", rate_per_minute=6, burst=1)  # one per 10 s
        assert await slow.reserve() == 0.0  # a full bucket: send now (and the budget starts)
        # The granted send times themselves (epoch seconds on the workflow's clock), not the
        # waits left on this host's clock, which a loaded machine shortens: queued behind each
        # other, 10 s apart whatever the time between the reservations.
        handle = env.client.get_workflow_handle(budget_workflow_id("order"))
        second, third = [await handle.execute_update(ModelRateBudget.reserve, Reservation(6, 1, "slow"))
                         for _ in range(2)]
        assert third - second == pytest.approx(10.0)
        # A faster configuration (a restarted worker with a new ARKEVO_LLM_RPM): the debt of the
        # three already granted is repaid at the new rate (0.3 s), so it is sent long before the
        # slots the slow rate had given.
        fourth = await handle.execute_update(ModelRateBudget.reserve, Reservation(600, 1, "fast"))
        assert fourth < second
        with pytest.raises(WorkflowUpdateFailedError) as refused:
            await handle.execute_update(ModelRateBudget.reserve, Reservation(0, 1, "broken"))
        assert "rate_per_minute must be > 0" in str(refused.value.cause)
        state = await handle.query(ModelRateBudget.status)
    assert state.granted == 4 and state.rate_per_minute == 600


async def test_the_bucket_carries_over_continue_as_new(env):
    async with Worker(env.client, task_queue=queues.CONTROL, workflows=[ModelRateBudget]):
        budget = TemporalBudget(env.client, "long", rate_per_minute=600_000, burst=1_000)
        for _ in range(RESERVATIONS_PER_RUN + 3):
            await budget.reserve()
        handle = env.client.get_workflow_handle(budget_workflow_id("long"))
        state = await handle.query(ModelRateBudget.status)
        history = [e async for e in handle.fetch_history_events()]
    assert state.granted == RESERVATIONS_PER_RUN + 3
    started = history[0].workflow_execution_started_event_attributes
    assert started.continued_execution_run_id  # this run continued the first one
    assert len(history) < 40  # and holds only the reservations since
