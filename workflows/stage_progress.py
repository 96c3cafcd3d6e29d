"""Counts inside a stage (samples graded n/m, trials done n/m by policy), signalled to the
TaskProduction that runs the stage: its `progress` query shows them under `detail.<stage>`.
An activity that is one long step (mutation testing) gets `target()` in its input and signals
its own counts ("operators tried n/m") the same way.

A signal to the parent is a workflow command, so this is deterministic. A stage workflow that
another parent runs (or that runs on its own) reports nothing: it signals only a parent whose
child it is by TaskProduction's naming, `<parent id>.<stage>`. Histories recorded before this
existed replay without it (`patched`).
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from contracts.payloads.common import STAGE_PROGRESS_SIGNAL, ProgressTarget, StageCounts

PATCH = "stage-sub-progress"
T = TypeVar("T")


class StageProgress:
    def __init__(self, stage: str) -> None:
        info = workflow.info()
        parent = info.parent
        ours = parent is not None and info.workflow_id == f"{parent.workflow_id}.{stage}"
        self._parent = parent.workflow_id if ours and parent is not None and workflow.patched(PATCH) else None
        self.stage = stage
        self._counts: dict[str, list[int]] = {}

    def target(self) -> ProgressTarget | None:
        """Where an activity of this stage signals counts of its own (None: no such parent)."""
        return ProgressTarget(self._parent, self.stage) if self._parent is not None else None

    async def expect(self, totals: dict[str, int]) -> None:
        """What the stage will do, and how many of each: {"trials oracle": 3}."""
        for name, total in totals.items():
            self._counts[name] = [0, total]
        await self._report()

    async def count(self, name: str, work: Awaitable[T]) -> T:
        """`work`'s result, counted as one more of `name` done when it ends."""
        result = await work
        self._counts[name][0] += 1
        await self._report()
        return result

    async def _report(self) -> None:
        if self._parent is None:
            return
        counts = {name: [done, total] for name, (done, total) in self._counts.items()}
        await workflow.get_external_workflow_handle(self._parent).signal(STAGE_PROGRESS_SIGNAL, StageCounts(self.stage, counts))
