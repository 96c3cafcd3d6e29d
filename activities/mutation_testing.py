"""Stage 05 mutation testing: the task-agnostic gaming operators applied to the reference delivery.

One warm probe process in the verifier sandbox (``bpy_procs.WarmProbe``; unisolated only when
the worker runs trials unisolated) opens the reference delivery, applies each operator of
``verifiers/mutations.py``, probes the scene in memory with the package's own ``tests/``
(rubric, task probes, start-scene snapshot) and re-opens it for the next.  The rows go to the
store; ``ReviewActivities.judge_calibration`` judges them under the calibrated grading
(``verifiers.mutation_testing.mutation_table``).  A task probe that raises is the author's
(``AuthorScriptFailed``); a Blender crash or hang is infrastructure and retried.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.errors import AUTHOR_SCRIPT_FAILED
from activities.store import ContentStore
from contracts.payloads import MutationInput, MutationRows
from sandbox.script_run import ScriptIsolation
from verifiers.bpy_procs import ScriptFailed, WarmProbe

HEARTBEAT_SECONDS = 5


class MutationActivities:
    def __init__(self, store: ContentStore, sandbox: ScriptIsolation = None):
        self.store = store
        self.sandbox = sandbox  # the delivery and the task's probes are outside code

    @activity.defn(name="mutation_test")
    async def mutation_test(self, req: MutationInput) -> MutationRows:
        with tempfile.TemporaryDirectory(prefix="arkevo-mutations-") as tmp:
            tests = self.store.materialize_tree(req.task_package, Path(tmp) / "tests", prefix="tests/")
            blend = self.store.fetch_to(req.delivery, Path(tmp) / "reference.blend")
            probes = tests / "task_probes.py"
            run = asyncio.create_task(asyncio.to_thread(
                self._run, blend, tests / "task.json", tests / "rubric.json",
                probes if probes.is_file() else None))
            while not run.done():  # Blender works off the event loop; keep heartbeating
                await asyncio.wait({run}, timeout=HEARTBEAT_SECONDS)
                activity.heartbeat("mutation testing")
            try:
                rows = run.result()
            except ScriptFailed as exc:
                raise ApplicationError(f"{req.task_id}: task probes failed under mutation testing: {exc}",
                                       type=AUTHOR_SCRIPT_FAILED, non_retryable=True) from exc
        return MutationRows(self.store.put_json({"task_id": req.task_id, "rows": rows}), len(rows),
                            sum(1 for r in rows if r["applicable"]))

    def _run(self, blend: Path, task: Path, rubric: Path, probes: Path | None) -> list[dict]:
        with WarmProbe(sandbox=self.sandbox) as probe:
            return probe.mutate(blend, task, rubric, probes)
