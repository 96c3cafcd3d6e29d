"""Stage 05's human review gate (`review: human`) with every activity mocked: the Review
workflow records a pending review and waits (the `human_review` query, ArkevoStage
"05-review:human-pending"), nothing is published meanwhile; `review_decision` accept freezes
with the decision and publishes, reject is `ReviewRejected` and a timeout `ReviewTimedOut`, both
publishing nothing; `arkevo review` sends to a waiting task only (exit 2 otherwise)."""

from __future__ import annotations

import asyncio
import dataclasses
from concurrent.futures import ThreadPoolExecutor

from temporalio import activity
from temporalio.client import WorkflowFailureError
from temporalio.worker import Worker

from cli.arkevo import main
from contracts import queues
from contracts.payloads.admission import AdmissionInput, AdmissionResult
from contracts.payloads.common import TaskProductionInput
from contracts.payloads.packaging import ProductionResult
from contracts.payloads.review import FreezeInput, FrozenTask, HumanReviewRequest, ReviewDecision
from tests.orchestration.test_task_production_mocked import Fakes, named_cause
from workers.pools import WORKFLOWS
from workflows.task_production import STAGE_KEY


class GatedFakes(Fakes):
    """Fakes whose admission plans `review: human`; the pending records and freezes are kept."""

    def __init__(self, timeout_sec: int = 3600):
        super().__init__("rule-only")
        self.timeout_sec = timeout_sec
        self.requests: list[HumanReviewRequest] = []
        self.frozen: list[FreezeInput] = []

    def activities(self) -> list:
        acts = super().activities()
        by_name = {activity._Definition.must_from_callable(a).name: a for a in acts}
        fakes = self

        @activity.defn(name="admit_seed")
        def admit_seed(req: AdmissionInput) -> AdmissionResult:
            result = by_name["admit_seed"](req)
            return dataclasses.replace(result, run=dataclasses.replace(
                result.run, review="human", review_timeout_sec=fakes.timeout_sec))

        @activity.defn(name="freeze_task")
        def freeze_task(req: FreezeInput) -> FrozenTask:
            fakes.frozen.append(req)
            return by_name["freeze_task"](req)

        @activity.defn(name="record_human_review")
        def record_human_review(req: HumanReviewRequest) -> str:
            fakes.requests.append(req)
            return f"/var/reviews/pending/{req.task_id}.json"

        own = {"admit_seed": admit_seed, "freeze_task": freeze_task}
        return [own.get(name, a) for name, a in by_name.items()] + [record_human_review]


def states(requests: list[HumanReviewRequest]) -> list[str]:
    """The pending record's states in order; an activity retried under load records one twice."""
    return [r.state for i, r in enumerate(requests) if i == 0 or r.state != requests[i - 1].state]


async def _gated_run(env, fakes: GatedFakes, wid: str, decide):
    """Start TaskProduction; `await decide(review_handle)` once 05 waits (None: never decide);
    the result or the failure."""
    with ThreadPoolExecutor(8) as pool:
        workers = [Worker(env.client, task_queue=queues.CONTROL, workflows=WORKFLOWS)]
        workers += [Worker(env.client, task_queue=q, activities=fakes.activities(), activity_executor=pool)
                    for q in (queues.CPU, queues.GPU, queues.LLM)]
        async with workers[0], workers[1], workers[2], workers[3]:
            handle = await env.client.start_workflow(
                "TaskProduction", TaskProductionInput("seeds/demo"), id=wid,
                task_queue=queues.CONTROL, result_type=ProductionResult)
            review = env.client.get_workflow_handle(f"{wid}.05-review")
            if decide is not None:
                state = None
                for _ in range(300):  # until 05 waits
                    try:
                        state = await review.query("human_review")
                        if state["waiting"]:
                            break
                    except Exception:  # noqa: BLE001 — 05 not started yet
                        pass
                    await asyncio.sleep(0.1)
                assert state is not None and state["waiting"], state
                await decide(review)
            try:
                return await asyncio.wait_for(handle.result(), 60)
            except WorkflowFailureError as e:
                return e


async def test_accept_after_waiting_publishes_with_the_decision(mocked_env):
    fakes = GatedFakes()

    async def decide(review):
        state = await review.query("human_review")
        assert state["request"]["workflow_id"] == "mocked-human-accept.05-review"
        assert state["request"]["task_production_id"] == "mocked-human-accept"
        desc = await review.describe()
        assert desc.typed_search_attributes.get(STAGE_KEY) == "05-review:human-pending"
        assert fakes.published == [] and fakes.frozen == []  # held until the decision
        await review.signal("review_decision", ReviewDecision("accept", "ana", "renders match the brief"))

    result = await _gated_run(mocked_env, fakes, "mocked-human-accept", decide)
    assert isinstance(result, ProductionResult), result
    [frozen] = fakes.frozen
    assert frozen.human_review is not None
    assert (frozen.human_review.decision, frozen.human_review.by, frozen.human_review.reason) == (
        "accept", "ana", "renders match the brief")
    assert frozen.human_review.at  # when the workflow took it
    assert states(fakes.requests) == ["waiting", "accepted"]
    assert len(fakes.published) == 1


async def test_reject_fails_by_name_and_publishes_nothing(mocked_env):
    fakes = GatedFakes()

    async def decide(review):
        # a malformed decision is ignored: the workflow keeps waiting for a real one
        await review.signal("review_decision", ReviewDecision("maybe", "ana"))
        await review.signal("review_decision", ReviewDecision("reject", "bo", "the handle is missing"))

    result = await _gated_run(mocked_env, fakes, "mocked-human-reject", decide)
    cause = named_cause(result, "ReviewRejected")
    assert cause.type == "ReviewRejected" and "rejected by bo: the handle is missing" in str(cause)
    assert cause.non_retryable
    assert fakes.published == [] and fakes.frozen == []
    assert states(fakes.requests) == ["waiting", "rejected"]


async def test_no_decision_within_the_timeout_is_review_timed_out(mocked_env):
    fakes = GatedFakes(timeout_sec=2)
    result = await _gated_run(mocked_env, fakes, "mocked-human-timeout", None)
    cause = named_cause(result, "ReviewTimedOut")
    assert cause.type == "ReviewTimedOut" and "within 2 s" in str(cause)
    assert fakes.published == [] and fakes.frozen == []
    assert states(fakes.requests) == ["waiting", "timed_out"]


async def test_the_cli_refuses_a_task_not_waiting_and_sends_nothing(mocked_env, tmp_path, monkeypatch, capsys):
    """`arkevo review accept`: no pending record, a workflow that does not wait (an ended one,
    one without the query): exit 2, ReviewNotWaiting, and the store is left as it was. An ended
    workflow is refused from its status, without a query that would wait for a worker."""
    monkeypatch.setenv("ARKEVO_VAR", str(tmp_path))
    monkeypatch.delenv("ARKEVO_STORE", raising=False)
    monkeypatch.delenv("ARKEVO_OBJECTS", raising=False)
    address = mocked_env.client.service_client.config.target_host
    assert main(["review", "accept", "nope", "--by", "ana", "--address", address]) == 2
    fakes = GatedFakes()

    async def decide(review):
        await review.signal("review_decision", ReviewDecision("accept", "ana", "ok"))

    await _gated_run(mocked_env, fakes, "mocked-human-cli", decide)
    before = sorted(p for p in tmp_path.rglob("*"))
    for wid in ("mocked-human-cli.05-review", "mocked-human-cli"):  # ended; not a Review workflow
        assert await asyncio.to_thread(main, ["review", "reject", "demo-task", "--by", "ana",
                                              "--workflow-id", wid, "--address", address]) == 2
        assert f"{wid} has ended (completed)" in capsys.readouterr().err.replace("\n", "")
    assert sorted(p for p in tmp_path.rglob("*")) == before
