"""TaskDerivation: new, independent tasks derived from existing Harbor tasks (docs/authoring.md).

Per source task directory (this project's publications or any Harbor task):

    read_source_task (cpu) -> extract_pattern (llm: the transferable pattern)
    -> generate_candidates (llm: K new seeds: scenario, numbers, names, own reference build
       script and requirement doc; malformed ones are recorded and dropped)
    -> measure_novelty (cpu: text and requirement-structure similarity to the source and to the
       candidates kept before it; at or above the threshold = near-duplicate, value recorded)
    -> write_derived_seed (cpu) -> TaskProduction child <id>.<seed_id> (the seed has no draft, so
       stage 03 authors it with the author model; oracle, nop and calibration margins decide)

Every source is read before any model call: a task of a frozen revision's held-out split (any
but train) is refused (`HeldOutDerivationSource`) unless `joins_split` names that split, and
the derived seeds declare their source's lineage, pinned to the split they join
(docs/datasets.md, "Lineage").

Productions run at most `concurrency` at a time; one candidate's failure is recorded with its
reason and never stops the others. The `progress` query counts candidates by status.
"""

from __future__ import annotations

import asyncio
import collections

from temporalio import workflow
from temporalio.common import VersioningBehavior
from temporalio.exceptions import ActivityError, ApplicationError, ChildWorkflowError

with workflow.unsafe.imports_passed_through():
    from workflows.versioning import versioned  # the behaviour on versioned workers only
    from activities.admission import AdmissionActivities
    from activities.derivation import DerivationActivities
    from contracts import queues
    from contracts.errors import DERIVATION_SPLIT_MISMATCH, HELD_OUT_DERIVATION_SOURCE
    from contracts.payloads.common import BlobRef, TaskProductionInput
    from contracts.payloads.derivation import (CandidateRequest, CandidateSet, DerivationInput,
                                               DerivationRecordInput, DerivationResult, DerivedTask,
                                               NoveltyInput, NoveltyVerdict, SourceTask, TaskPattern,
                                               WriteSeedInput)
    from contracts.payloads.model_authoring import ModelUsage
    from contracts.payloads.packaging import ProductionResult
    from workflows.activity_options import CPU, MODEL_CALL
    from workflows.failures import describe
    from workflows.task_production import TaskProduction


LINEAGE_PATCH = "derivation-lineage"  # read every source first; refuse held-out ones
TRAIN = "train"  # the one split a derivation may draw on without joining the source's split


def split_pin(source: SourceTask, joins_split: str | None) -> str | None:
    """The split the tasks derived from `source` are pinned to: `joins_split`, else the split a
    frozen revision holds the source in (train) or its own lineage is pinned to; None for a
    source in no frozen revision and unpinned. A source in a held-out split (any but train)
    without `joins_split` naming it is refused, as is a `joins_split` other than the source's
    split: either would leak across splits."""
    pinned = {source.lineage_split} if source.lineage_split else set()
    splits = sorted({p.split for p in source.placements} | pinned)
    where = ", ".join([f"{p.split} of {p.namespace}/{p.revision}" for p in source.placements]
                      + ([f"{source.lineage_split} (its lineage's pin)"] if source.lineage_split else []))
    held = [s for s in splits if s != TRAIN]
    if held and joins_split is None:
        raise ApplicationError(
            f"TaskDerivation: source {source.source} ({source.source_id}) is a task of the held-out "
            f"split {where}: deriving from it would leak that split into others; set joins_split "
            f"to {held[0]!r} to derive tasks that join it", type=HELD_OUT_DERIVATION_SOURCE,
            non_retryable=True)
    if splits and (len(splits) > 1 or (joins_split is not None and joins_split != splits[0])):
        raise ApplicationError(
            f"TaskDerivation: joins_split {joins_split!r} does not match source {source.source} "
            f"({source.source_id}), a task of {where}: derived tasks join their source's split",
            type=DERIVATION_SPLIT_MISMATCH, non_retryable=True)
    return joins_split or (splits[0] if splits else None)


@workflow.defn(name="TaskDerivation", versioning_behavior=versioned(VersioningBehavior.AUTO_UPGRADE))
class TaskDerivationWorkflow:
    def __init__(self) -> None:
        self._tasks: list[DerivedTask] = []

    @workflow.query
    def progress(self) -> dict:
        return {"by_status": dict(collections.Counter(t.status for t in self._tasks)),
                "tasks": [t.__dict__ for t in self._tasks]}

    @workflow.run
    async def run(self, req: DerivationInput) -> DerivationResult:
        if req.tasks_per_seed < 1 or req.concurrency < 1 or not req.sources:
            raise ApplicationError("TaskDerivation input: sources must be non-empty, and "
                                   "tasks_per_seed and concurrency at least 1",
                                   type="InvalidDerivationInput", non_retryable=True)
        wid = workflow.info().workflow_id
        threshold = req.similarity_threshold
        if threshold is None:
            defaults = await workflow.execute_activity_method(
                AdmissionActivities.pipeline_defaults, **CPU)
            threshold = defaults.derivation_similarity_threshold
        productions = asyncio.Semaphore(req.concurrency)
        sources: list[SourceTask] = []
        novelty: list[NoveltyVerdict] = []
        usage: list[ModelUsage] = []

        async def produce(source: SourceTask, candidate, verdict: NoveltyVerdict) -> None:
            task = DerivedTask(source.source_id, candidate.seed_id, "producing",
                               max_similarity=verdict.max_similarity)
            self._tasks.append(task)
            try:
                task.seed_path = await workflow.execute_activity_method(
                    DerivationActivities.write_derived_seed,
                    WriteSeedInput(candidate, req.out_dir, wid), **CPU)
                async with productions:
                    result: ProductionResult = await workflow.execute_child_workflow(
                        TaskProduction.run,
                        TaskProductionInput(task.seed_path, req.options,
                                            seed_tree=candidate.files),
                        id=f"{wid}.{candidate.seed_id}", task_queue=queues.CONTROL)
                task.status, task.publication = "published", result.publication.path
            except (ActivityError, ChildWorkflowError) as e:
                task.status, task.reason = "failed", describe(e)

        async def read(path: str) -> SourceTask | None:
            try:
                return await workflow.execute_activity_method(
                    DerivationActivities.read_source_task, path, **CPU)
            except ActivityError as e:
                self._tasks.append(DerivedTask(path, "", "failed", describe(e)))
                return None

        async def derive(path: str) -> None:
            source = await read(path)
            if source is not None:
                await derive_from(source, None)

        async def derive_from(source: SourceTask, pin: str | None) -> None:
            sources.append(source)
            try:
                pattern: TaskPattern = await workflow.execute_activity_method(
                    DerivationActivities.extract_pattern, source, **MODEL_CALL)
                usage.append(pattern.usage)
                generated: CandidateSet = await workflow.execute_activity_method(
                    DerivationActivities.generate_candidates,
                    CandidateRequest(source, pattern, req.tasks_per_seed, pin), **MODEL_CALL)
                usage.append(generated.usage)
                verdicts: list[NoveltyVerdict] = await workflow.execute_activity_method(
                    DerivationActivities.measure_novelty,
                    NoveltyInput(source, generated.candidates, threshold), **CPU)
            except ActivityError as e:
                self._tasks.append(DerivedTask(source.source_id, "", "failed", describe(e)))
                return
            novelty.extend(verdicts)
            for bad in generated.rejected:
                self._tasks.append(DerivedTask(source.source_id, bad.get("seed_id") or "",
                                               "malformed", bad.get("reason", "")))
            by_id = {v.seed_id: v for v in verdicts}
            keep = []
            for candidate in generated.candidates:
                verdict = by_id[candidate.seed_id]
                if verdict.accepted:
                    keep.append(produce(source, candidate, verdict))
                else:
                    self._tasks.append(DerivedTask(source.source_id, candidate.seed_id,
                                                   "near_duplicate", verdict.reason,
                                                   verdict.max_similarity))
            await asyncio.gather(*keep)

        if workflow.patched(LINEAGE_PATCH):
            # Every source is read (and its frozen splits known) before any model call, so a
            # held-out source refuses the whole derivation before anything is derived.
            read_all = await asyncio.gather(*(read(p) for p in req.sources))
            ready = [source for source in read_all if source is not None]
            pins = [split_pin(source, req.joins_split) for source in ready]
            await asyncio.gather(*(derive_from(source, pin) for source, pin in zip(ready, pins)))
        else:  # histories from before lineage: read and derive each source in one go
            await asyncio.gather(*(derive(p) for p in req.sources))
        record: BlobRef = await workflow.execute_activity_method(
            DerivationActivities.write_derivation_record,
            DerivationRecordInput(sources, self._tasks, novelty, usage, threshold), **CPU)
        return DerivationResult(self._tasks, record)
