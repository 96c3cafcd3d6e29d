"""DatasetProduction's orchestration with its activities and its TaskProduction children
mocked: no Blender, seconds. A dev server of its own (the real `temporal` binary) runs the real
DatasetProduction; the children are a stand-in workflow registered as "TaskProduction" that
holds a slot for a moment (so the concurrency cap is observable) and fails for one seed.

Checked: the cap; one seed's failure recorded with its reason while the others publish; seeds
already published in the revision skipped, never produced again; continue-as-new before the
history grows (here once 3 children ended) with nothing produced twice across runs; the
`progress` query's counts; with stop_when_ready, a freeze-check before each start (asked again
only after a publication), the rest deferred in one recorded batch once it passes, and a later
run that does not stop producing them.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from temporalio import activity, workflow
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ApplicationError
from temporalio.worker import Worker

from contracts import queues
from contracts.payloads.common import BlobRef, DatasetRef, TaskProductionInput
from contracts.payloads.datasets import (DatasetPlan, DatasetProductionInput, DatasetProductionResult,
                                         DatasetSeed, FreezeReadiness, OpenRevisionInput, SeedOutcome)
from contracts.payloads.packaging import ProductionResult, PublicationResult
from workflows.dataset_production import DatasetProduction

SEEDS = ["s0", "s1", "s2", "bad", "s3", "s4", "s5"]
SPEC = {"namespace": "demo", "revision": "r1", "seeds": [f"seeds/{s}" for s in SEEDS],
        "splits": {"train": 1}, "max_per_source": 1, "concurrency": 2}


class Fakes:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running = 0
        self.max_running = 0
        self.produced: list[str] = []
        self.finished: list[str] = []  # productions ended: their publications are in the store
        self.outcomes: list[SeedOutcome] = []
        self.opened = 0

    def activities(self) -> list:
        @activity.defn(name="open_dataset_revision")
        def open_dataset_revision(req: OpenRevisionInput) -> DatasetPlan:
            self.opened += 1
            assert req.spec == SPEC
            published = {"s0": "s0-r1"}  # an earlier production of this revision
            published.update({o.seed_id: o.publication_id for o in self.outcomes if o.state == "published"})
            return DatasetPlan("demo", "r1", "a" * 64, [DatasetSeed(f"seeds/{s}", s) for s in SEEDS],
                               published, 2, None, "/var/datasets/demo/r1")

        @activity.defn(name="record_seed_outcome")
        def record_seed_outcome(outcome: SeedOutcome) -> None:
            self.outcomes.append(outcome)

        @activity.defn(name="fake_produce")
        def fake_produce(seed: str) -> None:
            with self.lock:
                self.running += 1
                self.max_running = max(self.max_running, self.running)
                self.produced.append(seed)
            try:
                threading.Event().wait(0.3)
                if seed.endswith("/bad"):
                    raise ApplicationError("stage 02-admission failed: InvalidSeed: seeds/bad/seed.json: "
                                           "title: missing", {"stage": "02-admission", "type": "InvalidSeed"},
                                           type="StageFailed", non_retryable=True)
            finally:
                with self.lock:
                    self.running -= 1
                    self.finished.append(seed)

        return [open_dataset_revision, record_seed_outcome, fake_produce]


# Unsandboxed: the sandbox would re-import this test module and, through tests.conftest, the
# worker code that reads paths at import time.
@workflow.defn(name="TaskProduction", sandboxed=False)
class FakeTaskProduction:
    @workflow.run
    async def run(self, req: TaskProductionInput) -> ProductionResult:
        assert req.dataset is not None and req.dataset.namespace == "demo"
        await workflow.execute_activity("fake_produce", req.seed, task_queue=queues.CPU,
                                        start_to_close_timeout=timedelta(seconds=30))
        seed_id = req.seed.rsplit("/", 1)[-1]
        ref = BlobRef("objects/00/0", "0" * 64, 1)
        return ProductionResult(seed_id, seed_id, "v1", PublicationResult(f"{seed_id}-r1", "/p", ref, 1, "/e"),
                                [], None)


def workers(env, fakes: Fakes, pool: ThreadPoolExecutor) -> tuple[Worker, Worker]:
    """The real DatasetProduction with the stand-in children, and the fakes' activities."""
    return (Worker(env.client, task_queue=queues.CONTROL, workflows=[DatasetProduction, FakeTaskProduction]),
            Worker(env.client, task_queue=queues.CPU, activities=fakes.activities(), activity_executor=pool))


async def test_dataset_production_caps_isolates_failures_skips_published_and_continues_as_new(env):
    fakes = Fakes()
    wid = "dataset-demo-r1"
    with ThreadPoolExecutor(8) as pool:
        control, cpu = workers(env, fakes, pool)
        async with control, cpu:
            handle = await env.client.start_workflow(
                "DatasetProduction", DatasetProductionInput(spec=SPEC, continue_after=3), id=wid,
                task_queue=queues.CONTROL, result_type=DatasetProductionResult)
            result = await asyncio.wait_for(handle.result(), 60)
            progress = await handle.query("progress")

    assert fakes.max_running == 2  # the spec's concurrency, reached and never exceeded
    assert sorted(fakes.produced) == sorted(f"seeds/{s}" for s in SEEDS if s != "s0")  # each once
    assert result.failed == {"bad": "StageFailed: stage 02-admission failed: InvalidSeed: seeds/bad/seed.json: title: missing"}
    assert result.skipped == ["s0"]
    assert result.published == {s: f"{s}-r1" for s in SEEDS if s != "bad"}
    # 6 children, continue_after=3 with 2 slots: the first run starts a 4th before the 3rd ends
    assert result.runs == 2 and fakes.opened == 2
    assert {o.seed_id: o.state for o in fakes.outcomes} == {
        **{s: "published" for s in SEEDS if s not in ("s0", "bad")}, "bad": "failed"}
    assert [o.workflow_id for o in fakes.outcomes if o.seed_id == "s1"] == [f"{wid}.s1"]
    # what `arkevo dataset report` counts: where a failed seed stopped and why, and how long
    [bad] = [o for o in fakes.outcomes if o.seed_id == "bad"]
    assert (bad.stage, bad.failure_type) == ("02-admission", "InvalidSeed")
    assert all(o.started_at and o.started_at <= o.at for o in fakes.outcomes)
    assert all((o.stage, o.failure_type) == ("", "") for o in fakes.outcomes if o.state == "published")
    assert progress["counts"] == {"pending": 0, "running": 0, "published": 5, "skipped": 1, "failed": 1,
                                  "deferred": 0}
    assert progress["runs"] == 2


async def test_a_bad_spec_fails_the_production_without_retries(env):
    @activity.defn(name="open_dataset_revision")
    def open_dataset_revision(req: OpenRevisionInput) -> DatasetPlan:
        raise ApplicationError("spec: splits.train: 0 is less than the minimum of 1",
                               type="InvalidDatasetSpec", non_retryable=True)

    with ThreadPoolExecutor(2) as pool:
        control = Worker(env.client, task_queue=queues.CONTROL, workflows=[DatasetProduction])
        cpu = Worker(env.client, task_queue=queues.CPU, activities=[open_dataset_revision],
                     activity_executor=pool)
        async with control, cpu:
            with pytest.raises(WorkflowFailureError) as e:
                await asyncio.wait_for(env.client.execute_workflow(
                    "DatasetProduction", DatasetProductionInput(spec={"bad": 1}), id="dataset-bad",
                    task_queue=queues.CONTROL), 30)
    assert "splits.train" in str(e.value.cause.cause)


READY_SPEC = {**SPEC, "revision": "r2", "seeds": [f"seeds/{s}" for s in ("s0", "s1", "s2", "s3", "s4")],
              "concurrency": 1, "stop_when_ready": True}


class ReadyFakes(Fakes):
    """A revision that is ready to freeze once it holds 2 publications."""

    def __init__(self) -> None:
        super().__init__()
        self.checks: list[int] = []  # publications each freeze-check saw
        self.batches: list[list[str]] = []

    def published(self) -> dict[str, str]:
        return {o.seed_id: o.publication_id for o in self.outcomes if o.state == "published"}

    def activities(self) -> list:
        _, record_seed_outcome, fake_produce = super().activities()

        @activity.defn(name="open_dataset_revision")
        def open_dataset_revision(req: OpenRevisionInput) -> DatasetPlan:
            self.opened += 1
            seeds = [DatasetSeed(f"seeds/{s}", s, f"family-{s}") for s in ("s0", "s1", "s2", "s3", "s4")]
            return DatasetPlan("demo", "r1", "a" * 64, seeds, self.published(), 1, None,
                               "/var/datasets/demo/r2", stop_when_ready=True)

        @activity.defn(name="check_freeze_ready")
        def check_freeze_ready(ref: DatasetRef) -> FreezeReadiness:
            held = len(self.finished)  # published before the workflow records the outcome
            self.checks.append(held)
            return FreezeReadiness(held >= 2, held, [] if held >= 2 else [f"split_minimums: holds {held}, needs 2"])

        @activity.defn(name="record_seed_outcomes")
        def record_seed_outcomes(outcomes: list[SeedOutcome]) -> None:
            self.batches.append([o.seed_id for o in outcomes])
            self.outcomes.extend(outcomes)

        return [open_dataset_revision, check_freeze_ready, record_seed_outcomes, record_seed_outcome,
                fake_produce]


async def test_stop_when_ready_defers_the_rest_and_a_later_run_produces_them(env):
    fakes = ReadyFakes()
    with ThreadPoolExecutor(8) as pool:
        control, cpu = workers(env, fakes, pool)
        async with control, cpu:
            handle = await env.client.start_workflow(
                "DatasetProduction", DatasetProductionInput(spec=READY_SPEC), id="dataset-demo-r2",
                task_queue=queues.CONTROL, result_type=DatasetProductionResult)
            result = await asyncio.wait_for(handle.result(), 60)
            progress = await handle.query("progress")
            # in the plan's order, one at a time: a check before each start, asked again only
            # after a publication; ready once two are published, so the other three wait
            assert fakes.produced == ["seeds/s0", "seeds/s1"]
            assert fakes.checks == [0, 1, 2]
            assert result.deferred == ["s2", "s3", "s4"]
            assert fakes.batches == [["s2", "s3", "s4"]]  # one activity for all of them
            assert {o.seed_id: o.state for o in fakes.outcomes} == {
                "s0": "published", "s1": "published", "s2": "deferred", "s3": "deferred", "s4": "deferred"}
            assert all("stop_when_ready" in o.reason for o in fakes.outcomes if o.state == "deferred")
            assert progress["counts"]["deferred"] == 3 and progress["ready_to_freeze"] is True
            assert progress["order"] == ["s0", "s1", "s2", "s3", "s4"]

            # the same spec again, told not to stop: the deferred seeds are produced, nothing twice
            again = await asyncio.wait_for(env.client.execute_workflow(
                "DatasetProduction", DatasetProductionInput(spec=READY_SPEC, stop_when_ready=False),
                id="dataset-demo-r2-resume", task_queue=queues.CONTROL,
                result_type=DatasetProductionResult), 60)
    assert fakes.produced == [f"seeds/s{i}" for i in range(5)]
    assert fakes.checks == [0, 1, 2]  # not asked when not stopping
    assert again.deferred == [] and again.skipped == ["s0", "s1"]
    assert sorted(again.published) == ["s0", "s1", "s2", "s3", "s4"]
