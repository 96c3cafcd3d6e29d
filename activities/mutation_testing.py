"""Stage 05 mutation testing: the task-agnostic gaming operators applied to the reference
delivery, and the author's own gaming samples.

Each gaming sample (``private/calibration/gaming/*.py`` of the package) is applied to the
package's ``workspace/inputs/start.blend`` in one sandboxed Blender for all of them (author
code; each on a fresh open of the start scene, ``bpy_procs.apply_scripts``); each delivery goes
to the store.  One warm probe process in the verifier sandbox probes the gaming
deliveries and then (``bpy_procs.WarmProbe``; unisolated only when
the worker runs trials unisolated) opens the reference delivery, applies each operator of
``verifiers/mutations.py``, probes the scene in memory with the package's own ``tests/``
(rubric, task probes, start-scene snapshot) and re-opens it for the next, telling the
TaskProduction "operators tried n/m" as it goes.  The rows go to the
store; ``ReviewActivities.judge_calibration`` judges them under the calibrated grading
(``verifiers.mutation_testing.mutation_table``).  A task probe that raises is the author's
(``AuthorScriptFailed``); a Blender crash or hang is infrastructure and retried.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from temporalio import activity

from contracts.errors import author_script_failed
from storage.content import ContentStore
from contracts.payloads.common import STAGE_PROGRESS_SIGNAL, ProgressTarget, StageCounts, ref_dict
from contracts.payloads.review import MutationInput
from contracts.payloads.trials import MutationRows
from observability.heartbeats import in_thread
from sandbox.script_run import ScriptIsolation
from verifiers import bpy_procs
from blender.runner import ScriptFailed
from verifiers.bpy_procs import WarmProbe

GAMING = "private/calibration/gaming/"
TRIED = "operators tried"
log = logging.getLogger(__name__)


class TriedSignals:
    """`tried(done, total)` for the warm probe's thread: a count becomes a `stage_progress`
    signal to the TaskProduction running the stage (`ProgressTarget`), sent on the activity's
    event loop -- the first, the last, and between them at most one every EVERY_SEC, since each
    is an event in the TaskProduction's history. Progress is for people watching: a signal that
    fails is logged, never fails the activity; `sent()` waits for those still in flight so none
    arrives after the stage ends."""

    EVERY_SEC = 2.0

    def __init__(self, target: ProgressTarget):
        self._loop = asyncio.get_running_loop()
        self._handle = activity.client().get_workflow_handle(target.workflow_id)
        self._stage = target.stage
        self._pending: list[concurrent.futures.Future] = []
        self._last_sent = float("-inf")

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if 0 < done < total and now - self._last_sent < self.EVERY_SEC:
            return
        self._last_sent = now
        self._pending.append(asyncio.run_coroutine_threadsafe(
            self._handle.signal(STAGE_PROGRESS_SIGNAL, StageCounts(self._stage, {TRIED: [done, total]})), self._loop))

    async def sent(self) -> None:
        for outcome in await asyncio.gather(*map(asyncio.wrap_future, self._pending), return_exceptions=True):
            if isinstance(outcome, Exception):
                log.warning("operators tried: progress signal to %s not sent: %s", self._handle.id, outcome)


def tried_signals(target: ProgressTarget | None) -> TriedSignals | None:
    """None outside a worker (a CLI or test calling the method) or without a TaskProduction."""
    return TriedSignals(target) if target is not None and activity.in_activity() else None


class MutationActivities:
    def __init__(self, store: ContentStore, sandbox: ScriptIsolation = None):
        self.store = store
        self.sandbox = sandbox  # the delivery and the task's probes are outside code

    @activity.defn(name="mutation_test")
    async def mutation_test(self, req: MutationInput) -> MutationRows:
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="arkevo-mutations-") as tmp:
            work = Path(tmp)
            tests = self.store.materialize_tree(req.task_package, work / "tests", prefix="tests/")
            scripts = self.store.materialize_tree(req.task_package, work / "gaming", prefix=GAMING)
            start = self.store.fetch_to(self.store.tree_file(req.task_package, "workspace/inputs/start.blend"),
                                        work / "start.blend")
            blend = self.store.fetch_to(req.delivery, work / "reference.blend")
            probes = tests / "task_probes.py"
            tried = tried_signals(req.progress)
            try:
                rows, gaming = await in_thread(
                    self._run, blend, start, sorted(scripts.glob("*.py")), tests / "task.json",
                    tests / "rubric.json", probes if probes.is_file() else None, work, tried, what="mutation testing")
            except ScriptFailed as exc:  # a gaming script, or the task's probes, raised
                file, exception = exc.problems[0]
                rel = f"draft/calibration/gaming/{file.name}" if file.parent == scripts else f"draft/{file.name}"
                raise author_script_failed(f"{rel}: {exception} (under mutation testing)", file=rel,
                                           exception=exception, log_tail=exc.log_tail[-2000:]) from exc
            finally:
                if tried is not None:
                    await tried.sent()
            for row in gaming:  # kept: the review site shows what each attack delivered
                row["delivery"] = ref_dict(self.store.put_file(Path(row.pop("path"))))
        # What it cost, for `arkevo dataset report` (stage 05): its wall. Its Blender processes
        # run in the script sandbox, whose CPU is not accounted as a trial's cgroup is.
        cost = {"wall_sec": round(time.monotonic() - started, 3)}
        return MutationRows(self.store.put_json({"task_id": req.task_id, "rows": rows, "gaming": gaming,
                                                 "cost": cost}),
                            len(rows), sum(1 for r in rows if r["applicable"]), len(gaming))

    def _run(self, blend: Path, start: Path, scripts: list[Path], task: Path, rubric: Path,
             probes: Path | None, work: Path,
             tried: Callable[[int, int], None] | None) -> tuple[list[dict], list[dict]]:
        deliveries = bpy_procs.apply_scripts(  # one Blender for the author's samples (one author)
            start, [(s, work / "gaming-out" / f"{s.stem}.blend") for s in scripts], sandbox=self.sandbox)
        with WarmProbe(sandbox=self.sandbox) as probe:
            gaming = [{"sample": f"gaming:{s.stem}", "script": GAMING + s.name, "path": str(d),
                       "criteria": probe.probe(d, task, rubric, work / "gaming-out" / f"{s.stem}.json", probes)["criteria"]}
                      for s, d in zip(scripts, deliveries)]
            return bpy_procs.mutate_spread(probe, blend, task, rubric, probes, tried=tried), gaming
