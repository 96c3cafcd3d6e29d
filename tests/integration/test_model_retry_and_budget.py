"""One retry owner per model request, and one request budget for all llm workers
(docs/models.md), on a real Temporal dev server against the FAKE OpenAI-compatible server
(tests/fakes/openai_server.py; no model can be reached from here).

* A judge request answered 429 with Retry-After, then 200, is 2 requests in all: the judge
  sends once, the activity fails with the Retry-After as `next_retry_delay`, and Temporal's
  retry (the LLM activity options the workflows use) sends it again.
* Two real llm worker processes (`python -m workers llm`) judging at once draw on one
  `ModelRateBudget`: the requests reaching the endpoint are spaced by the rate, whichever
  process sends them.
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from temporalio import workflow
from temporalio.api.enums.v1 import EventType
from temporalio.worker import Worker

from storage.content import FilesystemStore
from activities.vl_judge import JudgeActivities
from contracts import queues
from contracts.payloads.vl_grading import VLJudgeOutcome, VLJudgeRequest
from modelapi.rate_budget import TemporalBudget
from tests.chaos.helpers import ChaosStack
from tests.fakes.openai_server import FakeOpenAIServer, error
from tests.fakes.vision_judge_script import answer
from verifiers.vl_model_judge import JudgeSettings
from workflows.activity_options import LLM
from workflows.model_rate_budget import ModelRateBudget

pytestmark = pytest.mark.temporal

ONE_QUESTION = {"judge_version": "1", "questions": [
    {"id": "A", "gate": True, "weight": 1.0, "scale": "binary", "images": ["front.png"],
     "prompt": "is it a table at all?", "metric": {"kind": "silhouette_iou", "pass_at": 0.5, "views": ["front"]}}]}


@workflow.defn(name="JudgeAll", sandboxed=False)
class JudgeAll:
    """Stand-in parent: judge_vl exactly as VLGrading schedules it (the LLM options), for each
    request at once, on the given queue."""

    @workflow.run
    async def run(self, reqs: list[VLJudgeRequest], task_queue: str) -> list[VLJudgeOutcome]:
        options = {**LLM, "task_queue": task_queue}
        return list(await asyncio.gather(*(
            workflow.execute_activity("judge_vl", r, result_type=VLJudgeOutcome, **options,
                                      schedule_to_close_timeout=timedelta(minutes=5))
            for r in reqs)))


def evidence_request(store: FilesystemStore, folder: Path, shade: int) -> VLJudgeRequest:
    """A one-question judgement of its own evidence (a different image per shade: no cache hit)."""
    folder.mkdir(parents=True)
    img = np.zeros((8, 8, 4), dtype=np.uint8)
    img[2:6, 2:6] = (shade, 100, 60, 255)
    Image.fromarray(img).save(folder / "front.png")
    return VLJudgeRequest(task_id=f"t{shade}", judge_config=store.put_json(ONE_QUESTION),
                          evidence=store.put_tree(folder))


async def test_a_429_with_retry_after_then_success_is_two_requests_in_all(temporal_env, tmp_path):
    client, queue = temporal_env.client, f"llm-{uuid.uuid4().hex[:8]}"
    store = FilesystemStore(tmp_path / "store")
    req = evidence_request(store, tmp_path / "evidence", 150)
    with FakeOpenAIServer([error(429, retry_after="2", message="slow down"), answer(1)]) as fake:
        # Its own queue for everything: the session's control worker may be polling arkevo-control.
        budget = TemporalBudget(client, f"test-{queue}", rate_per_minute=6000, burst=10, task_queue=queue)
        judge = JudgeActivities(store, budget, settings=JudgeSettings(fake.base_url, "fake-vision"))
        async with Worker(client, task_queue=queue, workflows=[JudgeAll, ModelRateBudget], activities=[judge.judge_vl]):
            handle = await client.start_workflow(JudgeAll.run, args=[[req], queue],
                                                 id=f"judge-once-{queue}", task_queue=queue)
            (outcome,) = await asyncio.wait_for(handle.result(), 60)
    assert outcome.vl_score == 1.0
    assert len(fake.requests) == 2  # one per attempt: nobody else retried
    gap = fake.requests[1].at - fake.requests[0].at
    # Retry-After (2 s) decided the wait, not the policy's 5 s first interval
    assert 2.0 <= gap < 5.0, gap
    attempts = [e.activity_task_started_event_attributes.attempt async for e in handle.fetch_history_events()
                if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED]
    assert attempts == [2]  # the started event is written for the attempt that ended it


async def test_the_budget_holds_across_two_llm_worker_processes(tmp_path):
    rpm, judgements = 60.0, 6  # one request a second, whichever process sends it
    stack = ChaosStack(tmp_path, tmp_path / "var")
    store = FilesystemStore(tmp_path / "var" / "store")
    reqs = [evidence_request(store, tmp_path / f"evidence-{i}", 100 + i) for i in range(judgements)]
    with FakeOpenAIServer([answer(1) for _ in range(judgements)]) as fake:
        try:
            await stack.start_server()
            stack.extra_env = {"ARKEVO_VL_BASE_URL": fake.base_url, "ARKEVO_VL_MODEL": "fake-vision",
                               "ARKEVO_LLM_RPM": str(rpm), "ARKEVO_LLM_BURST": "1"}
            llm = [stack.start_worker("llm", concurrency=judgements) for _ in range(2)]
            await stack.ready(*llm)
            async with Worker(stack.client, task_queue=queues.CONTROL, workflows=[JudgeAll, ModelRateBudget]):
                handle = await stack.client.start_workflow(JudgeAll.run, args=[reqs, queues.LLM],
                                                           id="judge-many", task_queue=queues.CONTROL)
                outcomes = await asyncio.wait_for(handle.result(), 90)
                identities = {e.activity_task_started_event_attributes.identity
                              async for e in handle.fetch_history_events()
                              if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED}
                callers, slots = await budget_grants(stack.client)
        finally:
            stack.close()
    assert [o.vl_score for o in outcomes] == [1.0] * judgements
    assert len(identities) == 2, f"both llm processes should have judged: {identities}"
    assert len(fake.requests) == judgements
    # One bucket for both processes, read from the budget workflow's history (its decisions on
    # its own clock, whatever the machine's load): every request reserved a slot there, from
    # both processes, and at 60 a minute with burst 1 the granted slots are a second apart.
    # Two processes with a bucket each would have been granted slots at the same times.
    interval = 60.0 / rpm
    assert len(slots) == judgements and len(callers) == 2, (callers, slots)
    gaps = [round(b - a, 3) for a, b in zip(slots, slots[1:])]
    print(f"budget across two llm processes: slots granted {gaps} s apart")
    assert all(gap >= interval - 1e-3 for gap in gaps), gaps


async def budget_grants(client) -> tuple[set[str], list[float]]:
    """(the callers that reserved, the granted send times in order) from the ModelRateBudget
    workflow's history: its updates' inputs and results."""
    import json

    from modelapi.rate_budget import DEFAULT_BUDGET, budget_workflow_id

    callers, slots = set(), []
    async for e in client.get_workflow_handle(budget_workflow_id(DEFAULT_BUDGET)).fetch_history_events():
        if e.HasField("workflow_execution_update_accepted_event_attributes"):
            request = e.workflow_execution_update_accepted_event_attributes.accepted_request
            callers.add(json.loads(request.input.args.payloads[0].data)["caller"])
        elif e.HasField("workflow_execution_update_completed_event_attributes"):
            outcome = e.workflow_execution_update_completed_event_attributes.outcome
            slots.append(json.loads(outcome.success.payloads[0].data))
    return callers, sorted(slots)
