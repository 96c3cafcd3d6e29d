"""Each activity's start and end reach the worker's log at INFO with its seed and stage
(observability/activity_log.py), on a real dev server: one activity that succeeds, one that
fails; and how seed and stage are read."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import timedelta

import pytest
from temporalio import activity, workflow
from temporalio.client import WorkflowFailureError
from temporalio.common import RetryPolicy
from temporalio.worker import Worker

from observability.activity_log import ActivityLog, seed_of, stage_of


@dataclass
class Work:
    seed_id: str
    fail: bool = False


@activity.defn(name="logged_work")
async def logged_work(work: Work) -> str:
    if work.fail:
        raise RuntimeError("broken on purpose")
    return "ok"


@workflow.defn(name="LoggedStage", sandboxed=False)
class LoggedStage:
    @workflow.run
    async def run(self, work: Work) -> str:
        return await workflow.execute_activity(logged_work, work, start_to_close_timeout=timedelta(seconds=30),
                                               retry_policy=RetryPolicy(maximum_attempts=1))


def test_stage_and_seed_are_read_from_the_workflow_id_and_the_input():
    assert stage_of("table-1.05-review") == "05-review"
    assert stage_of("table-1.06-evaluation/oracle/2.vl") == "06-evaluation"
    assert stage_of("campaign-x") is None
    assert seed_of([Work("mug-material")]) == "mug-material"
    assert seed_of(["no seed here"]) is None


@pytest.mark.temporal
async def test_start_and_end_are_logged_at_info_with_seed_and_stage(temporal_env, caplog):
    queue = f"log-{uuid.uuid4().hex[:8]}"
    caplog.set_level(logging.INFO, logger="temporalio.activity")
    async with Worker(temporal_env.client, task_queue=queue, workflows=[LoggedStage], activities=[logged_work],
                      interceptors=[ActivityLog()]):
        assert await temporal_env.client.execute_workflow(
            LoggedStage.run, Work("table-model"), id="p-1.04-trial-solves", task_queue=queue) == "ok"
        with pytest.raises(WorkflowFailureError):
            await temporal_env.client.execute_workflow(
                LoggedStage.run, Work("table-model", fail=True), id="p-2.06-evaluation", task_queue=queue)
    lines = [(r.levelno, r.getMessage(), getattr(r, "seed", None), getattr(r, "stage", None))
             for r in caplog.records if r.name == "temporalio.activity" and r.getMessage().startswith("logged_work ")]
    assert [(level, seed, stage) for level, _, seed, stage in lines] == [
        (logging.INFO, "table-model", "04-trial-solves")] * 2 + [(logging.INFO, "table-model", "06-evaluation")] * 2
    messages = [m for _, m, _, _ in lines]
    assert messages[0].startswith("logged_work started (seed table-model stage 04-trial-solves, attempt 1)")
    assert messages[1].startswith("logged_work done after")
    assert messages[3].startswith("logged_work ended with RuntimeError after")
