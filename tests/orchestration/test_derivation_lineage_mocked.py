"""TaskDerivation's lineage rules with every activity mocked (no model: seconds), on a dev
server of the module's own: every source is read before any model call; a task of a frozen
revision's held-out split is refused with `HeldOutDerivationSource` (the workflow fails, no
model is asked, nothing is derived) unless `joins_split` names that split; a `joins_split`
other than the source's split is `DerivationSplitMismatch`; the split the derived seeds are
pinned to reaches `generate_candidates`."""

from __future__ import annotations

import asyncio
import uuid

from temporalio import activity
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ApplicationError
from temporalio.worker import Worker

from contracts import queues
from contracts.errors import DERIVATION_SPLIT_MISMATCH, HELD_OUT_DERIVATION_SOURCE
from contracts.payloads.admission import PipelineDefaults
from contracts.payloads.common import BlobRef
from contracts.payloads.derivation import (CandidateRequest, CandidateSet, DerivationInput,
                                           DerivationRecordInput, DerivationResult, NoveltyInput,
                                           NoveltyVerdict, SourcePlacement, SourceTask, TaskPattern)
from contracts.payloads.model_authoring import ModelUsage
from workflows.derivation import TaskDerivationWorkflow

REF = BlobRef("objects/00/" + "0" * 62, "0" * 64, 1)
# source folder -> the splits frozen revisions hold it in
SOURCES = {"pub/oak/task": ["train"], "pub/pine/task": ["test"], "harbor/foreign": []}


class Calls:
    def __init__(self):
        self.read: list[str] = []
        self.model: list[str] = []
        self.requests: list[CandidateRequest] = []

    def activities(self) -> list:
        calls = self

        @activity.defn(name="pipeline_defaults")
        async def pipeline_defaults() -> PipelineDefaults:
            return PipelineDefaults(["oracle", "nop"], ["oracle", "nop"], 2, 0.9, 0.2, "image-metric", 3, 0.6)

        @activity.defn(name="read_source_task")
        async def read_source_task(source: str) -> SourceTask:
            calls.read.append(source)
            name = source.split("/")[1]
            return SourceTask(source, name, REF, name, f"src-{name}",
                              [SourcePlacement("lin", "r1", split, "a" * 64) for split in SOURCES[source]])

        @activity.defn(name="extract_pattern")
        async def extract_pattern(source: SourceTask) -> TaskPattern:
            calls.model.append(f"pattern:{source.source_id}")
            return TaskPattern(source.source_id, REF, ModelUsage("deriver", "fake", 1, 10, 10, 0.1))

        @activity.defn(name="generate_candidates")
        async def generate_candidates(req: CandidateRequest) -> CandidateSet:
            calls.model.append(f"candidates:{req.source.source_id}")
            calls.requests.append(req)
            return CandidateSet([], [], ModelUsage("deriver", "fake", 1, 10, 10, 0.1))

        @activity.defn(name="measure_novelty")
        async def measure_novelty(req: NoveltyInput) -> list[NoveltyVerdict]:
            return []

        @activity.defn(name="write_derivation_record")
        async def write_derivation_record(req: DerivationRecordInput) -> BlobRef:
            return REF

        return [pipeline_defaults, read_source_task, extract_pattern, generate_candidates,
                measure_novelty, write_derivation_record]


async def derive(env, sources: list[str], joins_split: str | None = None):
    calls = Calls()
    acts = calls.activities()
    async with Worker(env.client, task_queue=queues.CONTROL, workflows=[TaskDerivationWorkflow]), \
            Worker(env.client, task_queue=queues.CPU, activities=[a for a in acts if a.__name__ not in
                                                                   ("extract_pattern", "generate_candidates")]), \
            Worker(env.client, task_queue=queues.LLM, activities=[a for a in acts if a.__name__ in
                                                                   ("extract_pattern", "generate_candidates")]):
        try:
            result: DerivationResult | WorkflowFailureError = await asyncio.wait_for(env.client.execute_workflow(
                "TaskDerivation", DerivationInput(sources, tasks_per_seed=2, joins_split=joins_split),
                id=f"derive-lineage-{uuid.uuid4().hex[:8]}", task_queue=queues.CONTROL,
                result_type=DerivationResult), 60)
        except WorkflowFailureError as e:
            result = e
    return result, calls


def refusal(result) -> ApplicationError:
    assert isinstance(result, WorkflowFailureError), result
    assert isinstance(result.cause, ApplicationError), result.cause
    return result.cause


async def test_a_held_out_source_refuses_the_derivation_before_any_model_call(env):
    result, calls = await derive(env, ["pub/oak/task", "pub/pine/task"])
    cause = refusal(result)
    assert cause.type == HELD_OUT_DERIVATION_SOURCE and cause.non_retryable
    assert "pub/pine/task (pine) is a task of the held-out split test of lin/r1" in cause.message
    assert sorted(calls.read) == ["pub/oak/task", "pub/pine/task"]  # both read first
    assert calls.model == []  # the train source was not derived from either


async def test_joining_the_held_out_split_derives_and_pins_it(env):
    result, calls = await derive(env, ["pub/pine/task"], joins_split="test")
    assert isinstance(result, DerivationResult), result
    assert calls.model == ["pattern:pine", "candidates:pine"]
    assert [r.joins_split for r in calls.requests] == ["test"]


async def test_a_train_source_pins_its_derived_tasks_to_train_and_a_foreign_one_to_nothing(env):
    result, calls = await derive(env, ["pub/oak/task", "harbor/foreign"])
    assert isinstance(result, DerivationResult), result
    assert {r.source.source_id: r.joins_split for r in calls.requests} == {"oak": "train", "foreign": None}


async def test_joining_another_split_than_the_sources_is_a_mismatch(env):
    result, calls = await derive(env, ["pub/oak/task"], joins_split="test")
    cause = refusal(result)
    assert cause.type == DERIVATION_SPLIT_MISMATCH and cause.non_retryable
    assert "joins_split 'test' does not match source pub/oak/task (oak), a task of train of lin/r1" in cause.message
    assert calls.model == []
