"""DatasetProduction: many TaskProductions into one dataset revision (docs/datasets.md).

Opens the revision (validates the spec, stores it once, lists what is already published), then
runs one TaskProduction child per seed not yet published, at most `concurrency` at a time. A
seed's failure is recorded with its reason and never stops the others. Before its history grows
large it drains the running children and continues as new, handing on what it has done; the
new run re-opens the revision, so work already published is never produced again — the same
holds when a person re-runs the same spec. Seeds start in the plan's gap-first order (source
families round-robin); with `stop_when_ready` none starts once freeze-check passes, and the rest
are deferred: recorded, listed, and produced by a later run that does not stop.

    temporal workflow start --type DatasetProduction --task-queue arkevo-control \\
        --workflow-id dataset-demo-r1 --input '{"spec_path": "datasets/demo.json"}'
"""

from __future__ import annotations

import asyncio

from temporalio import workflow
from temporalio.common import VersioningBehavior, WorkflowIDReusePolicy
from temporalio.exceptions import ChildWorkflowError

with workflow.unsafe.imports_passed_through():
    from workflows.versioning import versioned  # the behaviour on versioned workers only
    from activities.datasets import DatasetActivities
    from contracts import queues
    from contracts.payloads.common import DatasetRef, TaskProductionInput
    from contracts.payloads.datasets import (DatasetCarry, DatasetPlan, DatasetProductionInput,
                                             DatasetProductionResult, FreezeReadiness, OpenRevisionInput,
                                             SeedOutcome)
    from contracts.payloads.packaging import ProductionResult
    from workflows.activity_options import CPU
    from workflows.failures import root_cause
    from workflows.task_production import TaskProduction


@workflow.defn(name="DatasetProduction", versioning_behavior=versioned(VersioningBehavior.AUTO_UPGRADE))
class DatasetProduction:
    def __init__(self) -> None:
        self._plan: DatasetPlan | None = None
        self._state: dict[str, str] = {}  # seed_id -> pending | running | published | skipped | failed | deferred
        self._failed: dict[str, str] = {}
        self._published: dict[str, str] = {}
        self._runs = 1
        self._readiness: FreezeReadiness | None = None  # the last freeze-check, when stop_when_ready

    @workflow.query
    def progress(self) -> dict:
        counts = {s: 0 for s in ("pending", "running", "published", "skipped", "failed", "deferred")}
        for state in self._state.values():
            counts[state] += 1
        plan = self._plan
        return {
            "namespace": plan and plan.namespace, "revision": plan and plan.revision,
            "location": plan and plan.location, "total": len(self._state), "counts": counts,
            "running": sorted(s for s, v in self._state.items() if v == "running"),
            "failed": dict(self._failed), "runs": self._runs,
            "order": [s.seed_id for s in plan.seeds] if plan else [],
            "ready_to_freeze": None if self._readiness is None else self._readiness.ready,
            "gaps": [] if self._readiness is None else list(self._readiness.gaps),
        }

    @workflow.run
    async def run(self, req: DatasetProductionInput) -> DatasetProductionResult:
        now = lambda: workflow.now().isoformat(timespec="seconds")  # noqa: E731
        if req.carry is not None:
            self._runs = req.carry.runs + 1
            self._failed = dict(req.carry.failed)
            self._published = dict(req.carry.published)
        plan = await workflow.execute_activity_method(
            DatasetActivities.open_dataset_revision, OpenRevisionInput(req.spec, req.spec_path, now()),
            **CPU)
        self._plan = plan
        skipped = sorted(s for s in plan.published if s not in self._published)
        for seed in plan.seeds:
            if seed.seed_id in plan.published:
                self._state[seed.seed_id] = "published" if seed.seed_id in self._published else "skipped"
            elif seed.seed_id in self._failed:
                self._state[seed.seed_id] = "failed"  # an earlier run of this production: not again
            else:
                self._state[seed.seed_id] = "pending"

        todo = [s for s in plan.seeds if self._state[s.seed_id] == "pending"]
        done_here = 0
        running: set[str] = set()
        stop_when_ready = plan.stop_when_ready if req.stop_when_ready is None else req.stop_when_ready
        checked_at = -1  # publications seen by the last freeze-check

        async def ready_to_freeze() -> bool:
            """Whether freeze-check passes now; asked again only after another publication."""
            nonlocal checked_at
            if len(self._published) != checked_at:
                checked_at = len(self._published)
                self._readiness = await workflow.execute_activity_method(
                    DatasetActivities.check_freeze_ready, DatasetRef(plan.namespace, plan.revision), **CPU)
            assert self._readiness is not None
            return self._readiness.ready

        async def produce(seed) -> None:
            nonlocal done_here
            wid = f"{workflow.info().workflow_id}.{seed.seed_id}"
            self._state[seed.seed_id] = "running"
            started = now()
            try:
                result: ProductionResult = await workflow.execute_child_workflow(
                    TaskProduction.run,
                    TaskProductionInput(seed.seed, plan.options, DatasetRef(plan.namespace, plan.revision),
                                        seed_tree=seed.seed_tree),
                    id=wid, task_queue=queues.CONTROL,
                    id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE)
                self._state[seed.seed_id] = "published"
                self._published[seed.seed_id] = result.publication.publication_id
                outcome = SeedOutcome(plan.namespace, plan.revision, seed.seed, seed.seed_id, "published",
                                      wid, now(), publication_id=result.publication.publication_id,
                                      task_id=result.task_id, started_at=started)
            except ChildWorkflowError as e:
                root = root_cause(e)
                reason = str(root)
                self._state[seed.seed_id] = "failed"
                self._failed[seed.seed_id] = reason
                where = _stage_failure(root)
                outcome = SeedOutcome(plan.namespace, plan.revision, seed.seed, seed.seed_id, "failed",
                                      wid, now(), reason=reason, started_at=started,
                                      stage=where.get("stage", ""), failure_type=where.get("type", ""))
            finally:
                running.discard(seed.seed_id)
                done_here += 1
            await workflow.execute_activity_method(DatasetActivities.record_seed_outcome, outcome, **CPU)

        tasks = []
        deferred: list[str] = []
        for i, seed in enumerate(todo):
            await workflow.wait_condition(lambda: len(running) < plan.concurrency)
            if done_here >= req.continue_after or workflow.info().is_continue_as_new_suggested():
                break
            if stop_when_ready and await ready_to_freeze():
                deferred = [s.seed_id for s in todo[i:]]
                break
            running.add(seed.seed_id)
            tasks.append(asyncio.create_task(produce(seed)))
        await workflow.wait_condition(lambda: not running)
        for t in tasks:
            await t  # re-raises nothing: produce() records failures itself
        if deferred:
            # Listed, not lost: a later run without stop_when_ready produces them.
            for seed_id in deferred:
                self._state[seed_id] = "deferred"
            await workflow.execute_activity_method(DatasetActivities.record_seed_outcomes, [
                SeedOutcome(plan.namespace, plan.revision, s.seed, s.seed_id, "deferred", "", now(),
                            reason="not started: freeze-check passed before its turn (stop_when_ready)")
                for s in plan.seeds if s.seed_id in deferred], **CPU)

        if any(self._state[s.seed_id] == "pending" for s in plan.seeds):
            # Drained: hand on to a fresh run with a short history. It re-opens the revision,
            # so what was published here is skipped there.
            workflow.continue_as_new(DatasetProductionInput(
                spec=req.spec, spec_path=req.spec_path, continue_after=req.continue_after,
                carry=DatasetCarry(self._runs, self._failed, self._published)))

        return DatasetProductionResult(
            namespace=plan.namespace, revision=plan.revision, location=plan.location,
            published={**plan.published, **self._published}, skipped=skipped,
            failed=dict(self._failed), runs=self._runs, deferred=deferred)


def _stage_failure(root: BaseException) -> dict:
    """{stage, type} a TaskProduction's StageFailed names (empty for any other failure)."""
    details = getattr(root, "details", None) or ()
    if getattr(root, "type", None) == "StageFailed" and details and isinstance(details[0], dict):
        return details[0]
    return {}
