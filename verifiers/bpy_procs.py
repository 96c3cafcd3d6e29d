"""Blender subprocesses for the verifier side: fresh processes per script, and a warm probe.

Every fresh run goes through ``blender.runner.BlenderJob`` (the project's one runner, which
also decides whose a failure is).  What runs here is outside code -- a seed's build script,
reference solution and calibration samples, a draft's ``task_probes.py``, the deliveries they
make -- so by default each run goes through the trial sandbox (``sandbox/script_run.py``: its
own slot user, Landlock, loopback-only network, rlimits and cgroup; only the job's files go in,
only its outputs come out).  ``sandbox=`` chooses: ``LOCAL`` (a plain subprocess of the caller,
for an author's own code on their own machine), ``SandboxSettings``, or None
(``ARKEVO_TRIAL_BACKEND`` decides: ``local`` = unisolated, else the sandbox with default
settings).

Failures (``blender.runner``): an author's script that raises is ``ScriptFailed`` (naming the
file and the exception); any other non-zero exit, a hang or a dead warm process is
``BlenderProcessError`` -- infrastructure, never a score; a sandbox that cannot start raises
``SandboxUnavailable``, ``LaunchFailed`` or ``SlotUnavailable`` with its reason.  ``WarmProbe``
keeps one bpy process with the probe library loaded and measures many deliveries in it (see
``probe_server.py``); ``probe_fresh`` starts one process per probe.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import json
import os
import select
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, cast

from blender.runner import (BlenderJob, BlenderProcessError, ScriptFailed, blender_env, bpy_python,
                            script_failure)
from contracts.seed_check import TASK_PROBES  # the draft's own probes file
from sandbox.isolation.settings import SandboxSettings
from sandbox.script_run import LOCAL, SandboxedServer, ScriptIsolation, SlotUnavailable, script_isolation
from verifiers.version import PROBE_FILES

VERIFIERS = Path(__file__).resolve().parent
ROOT = VERIFIERS.parent
RULE_PROBE = VERIFIERS / "rule_probe.py"
PROBE_SERVER = VERIFIERS / "probe_server.py"
RENDER_EVIDENCE = VERIFIERS / "render_evidence.py"
APPLY_SCRIPT = ROOT / "blender" / "apply_script.py"
BUILD_WORKSPACE = ROOT / "blender" / "build_workspace.py"
BUILD_ERROR = "build_workspace: error:"  # what build_workspace.py prints before exiting 2
START_SCENE = "start_scene.json"  # the start scene's snapshot, beside the rubric (rule_probe.py)
MUTATIONS = "mutations.py"  # the gaming operators: warm probes load them beside the probe code


def apply_script(blend_in: Path, script: Path, blend_out: Path, timeout: float = 600, *,
                 sandbox: ScriptIsolation = None, reproducible: bool = True) -> Path:
    """Run an author's script on `blend_in` and save the scene to `blend_out`."""
    return apply_scripts(blend_in, [(script, blend_out)], timeout, sandbox=sandbox, reproducible=reproducible)[0]


def apply_scripts(blend_in: Path, jobs: list[tuple[Path, Path]], timeout: float = 600, *,
                  sandbox: ScriptIsolation = None, reproducible: bool = True) -> list[Path]:
    """Run each (script, blend_out) of *one author* on a fresh open of `blend_in`, in one Blender
    process (one start-up, ~1 s of CPU, instead of one per script); `timeout` is per script.
    The scripts share the process, so one can change what a later one delivers: that gives the
    author nothing its own scripts could not do, but never mix two parties' scripts here.
    The first script that fails raises ScriptFailed naming it. `reproducible`: under a frozen
    clock, outputs in canonical form (the same script gives the same bytes; docs/reproducibility.md);
    False saves as a solver's Blender would."""
    if not jobs:
        return []
    names = [s.name for s, _ in jobs], [o.name for _, o in jobs]
    if any(len(set(n)) != len(n) for n in names):
        raise ValueError(f"apply_scripts: script and output names must be unique: {names}")
    job = BlenderJob(sandbox, reproducible=reproducible)
    args = ["--in", job.input(blend_in, f"/workspace/inputs/{blend_in.name}")]
    authored = {}
    for script, blend_out in jobs:
        blend_out.unlink(missing_ok=True)  # a stale delivery must not pass for this run's
        seen = job.input(script, f"/workspace/{script.name}")
        authored[seen] = script
        args += ["--script", seen, "--out", job.output(blend_out, f"/workspace/outputs/{blend_out.name}")]
    job.run_blocking(APPLY_SCRIPT, args, timeout=timeout * len(jobs), authored=authored)
    for script, blend_out in jobs:
        if not blend_out.is_file():  # only the script can end the run before the save
            raise ScriptFailed([(script, "the run ended without saving the scene (does the script exit?)")])
    return [blend_out for _, blend_out in jobs]


def build_workspace(reference: Path, start_mode: str, out_start: Path, out_reference: Path,
                    timeout: float = 600, *, seed_dir: Path | None = None,
                    sandbox: ScriptIsolation = None) -> Path:
    """Build the starting workspace from a seed's reference project. Sandboxed, the seed's files
    except draft/ (never its rubric, solution or calibration) and a family's family/ (the
    templates of those) go in at /workspace/seed; without `seed_dir`, the reference's own folder."""
    job = BlenderJob(sandbox, reproducible=True)  # start.blend and reference.blend are published
    seed = seed_dir or reference.parent
    ref = str(reference)
    if not job.local:
        for child in sorted(seed.iterdir()):
            if child.name not in ("draft", "family"):
                job.input(child, f"/workspace/seed/{child.name}")
        ref = f"/workspace/seed/{reference.relative_to(seed).as_posix()}"
    job.run_blocking(BUILD_WORKSPACE, ["--reference", ref, "--start-mode", start_mode,
                              "--out-start", job.output(out_start, "/workspace/out/start.blend"),
                              "--out-reference", job.output(out_reference, "/workspace/out/reference.blend")],
            timeout=timeout, cwd=seed, inside_cwd="/workspace/seed", authored={ref: reference},
            marker=BUILD_ERROR)
    if not (out_start.is_file() and out_reference.is_file()):
        raise ScriptFailed([(reference, "the build ended without saving start.blend and "
                                        "reference.blend (does the script exit?)")])
    return out_start


def task_probes(rubric: Path, probes: Path | None) -> Path | None:
    """The task's own primitives: `probes`, else ``task_probes.py`` beside the rubric, if any."""
    if probes is not None and not Path(probes).is_file():
        raise FileNotFoundError(f"task probes not found: {probes}")
    sibling = Path(rubric).with_name(TASK_PROBES)
    return Path(probes) if probes is not None else sibling if sibling.is_file() else None


def probe_fresh(blend: Path, task: Path, rubric: Path, out: Path, probes: Path | None = None,
                timeout: float = 600, *, sandbox: ScriptIsolation = None, started: Path | None = None,
                problem: tuple[str, str] | None = None) -> dict:
    """One fresh bpy process for one probe (what a packaged task's test.sh does): ``started``
    gets rule_probe's marker once the delivery is about to be opened; ``problem`` (type, detail)
    scores every criterion 0 without opening it (``DeliveryCrashedProbe``, ``DeliveryHungProbe``)."""
    job = BlenderJob(sandbox)
    probes = task_probes(rubric, probes)
    args = ["--blend", job.input(blend, f"/workspace/{blend.name}"),
            "--task", job.input(task, "/tests/task/task.json"),
            "--rubric", job.input(rubric, "/tests/task/rubric.json"),
            "--out", job.output(out, "/workspace/out/report.json")]
    if started is not None:
        started.unlink(missing_ok=True)
        args += ["--started", job.output(started, "/workspace/out/started.json")]
    if problem is not None:
        args += ["--delivery-problem", problem[0], "--detail", problem[1]]
    authored = {}
    if probes is not None:
        seen = job.input(probes, f"/tests/task/{TASK_PROBES}")
        args += ["--probes", seen]
        authored[seen] = probes
    if (start := Path(rubric).with_name(START_SCENE)).is_file():
        args += ["--start-scene", job.input(start, f"/tests/task/{START_SCENE}")]
    for name in PROBE_FILES:  # rule_probe.py's siblings, next to it in /tests
        job.input(VERIFIERS / name, f"/tests/{name}")
    job.run_blocking(RULE_PROBE, args, timeout=timeout, authored=authored)
    return json.loads(Path(out).read_text(encoding="utf-8"))


def probe_as_trial(blend: Path, task: Path, rubric: Path, out: Path, probes: Path | None = None,
                   timeout: float = 600, *, sandbox: ScriptIsolation = None) -> dict:
    """The rule report a trial's verifier gives ``blend`` (``tests/test.sh``): one fresh probe;
    when it is killed by a signal or times out after it began to open the delivery, the
    delivery broke it and every criterion scores 0 (``DeliveryCrashedProbe`` /
    ``DeliveryHungProbe``); any other failure is the verifier's (``BlenderProcessError``)."""
    started = out.with_name(out.name + ".started")
    try:
        return probe_fresh(blend, task, rubric, out, probes, timeout, sandbox=sandbox, started=started)
    except BlenderProcessError as exc:
        if not started.is_file() or (exc.returncode is not None and exc.returncode >= 0):
            raise
        problem = "DeliveryHungProbe" if exc.returncode is None else "DeliveryCrashedProbe"
        return probe_fresh(blend, task, rubric, out, probes, timeout, sandbox=sandbox,
                           problem=(problem, str(exc).splitlines()[0]))


def render_jobs(jobs: list[dict], timeout: float = 900, *, sandbox: ScriptIsolation = None) -> list[dict]:
    """Render evidence for ``jobs`` ([{blend, spec, out}]) in one bpy process; manifests back.
    What comes back is untrusted: the caller checks it (``evidence.check_rendered``)."""
    if not jobs:
        return []
    job = BlenderJob(sandbox)
    inside = [{"blend": job.input(Path(j["blend"]), f"/workspace/deliveries/{i}/{Path(j['blend']).name}"),
               "spec": j["spec"], "out": job.output(Path(j["out"]), f"/workspace/evidence/{i}")}
              for i, j in enumerate(jobs)]
    with tempfile.TemporaryDirectory(prefix="arkevo-render-") as tmp:
        jobs_file = Path(tmp) / "jobs.json"
        jobs_file.write_text(json.dumps(inside), encoding="utf-8")
        job.run_blocking(RENDER_EVIDENCE, ["--jobs", job.input(jobs_file, "/tests/jobs.json")], timeout=timeout)
    manifests = []
    for j in jobs:
        manifest = Path(j["out"]) / "manifest.json"
        if not manifest.is_file():
            raise BlenderProcessError(f"render_evidence.py wrote no manifest for {j['blend']}")
        manifests.append(json.loads(manifest.read_text(encoding="utf-8")))
    return manifests


class WarmProbe:
    """One warm bpy process running ``probe_server.py``; ``probe()`` is its unit of work.

    Use as a context manager.  Thread-safe (one job at a time).  If the process dies, the
    current call raises ``BlenderProcessError`` and the next call starts a fresh process.

    Sandboxed (the default), the process lives in one sandbox for as long as it runs: the
    probe code goes in at start, each job's task files once per content and its delivery for
    that job only (all under the read-only /tests), and the report comes back on the reply
    line.  One warm probe serves one caller: its jobs share the process.

    ``code`` is the folder holding the probe code it runs (``PROBE_FILES``, ``probe_server.py``,
    ``mutations.py``): the workers' own ``verifiers/`` unless a drift check names a candidate's
    (``verifiers.drift.stage_code``)."""

    def __init__(self, timeout: float = 600, log: Path | None = None, *,
                 sandbox: ScriptIsolation = None, code: Path = VERIFIERS):
        self.timeout = timeout
        self.code = Path(code)
        self.log = log
        self.isolation = script_isolation(sandbox)
        self._proc: subprocess.Popen | None = None  # LOCAL
        self._reader: BinaryIO | None = None
        self._pending = b""  # read from the reply pipe, not yet returned
        self._server: SandboxedServer | None = None  # sandboxed
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task_dirs: set[str] = set()
        self._lock = threading.Lock()
        self.jobs = 0
        self.starts = 0

    def __enter__(self) -> "WarmProbe":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def local(self) -> bool:
        return self.isolation == LOCAL

    def _running(self) -> bool:
        if self.local:
            return self._proc is not None and self._proc.poll() is None
        if self._server is None:
            return False
        assert self._server.process is not None  # set by SandboxedServer.start
        return self._server.process.returncode is None

    def _start(self) -> None:
        if self.local:
            self._start_local()
        else:
            self._kill()  # a process that died still holds its sandbox's slot
            self._task_dirs.clear()
            self._server = self._call(SandboxedServer.start(
                self.code / PROBE_SERVER.name, ["--reply-fd", "1"], log=self.log,
                settings=cast(SandboxSettings, self.isolation),  # not LOCAL here
                inputs={f"/tests/{name}": self.code / name for name in (*PROBE_FILES, MUTATIONS)}))
        self.starts += 1
        ready = self._read_reply(120)
        if not ready.get("ready"):
            raise BlenderProcessError(f"warm probe did not start: {ready}")

    def _start_local(self) -> None:
        read_fd, write_fd = os.pipe()
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL
        try:
            self._proc = subprocess.Popen(
                [bpy_python(), str(self.code / PROBE_SERVER.name), "--reply-fd", str(write_fd)],
                stdin=subprocess.PIPE, stdout=out, stderr=out, pass_fds=(write_fd,), env=blender_env(),
                text=True,
            )
        finally:
            os.close(write_fd)
            if out is not subprocess.DEVNULL:
                assert not isinstance(out, int)  # the log file opened above
                out.close()
        self._reader = os.fdopen(read_fd, "rb", buffering=0)  # read raw: _read_reply splits lines
        self._pending = b""

    def _call(self, coro):
        """Run a coroutine on this probe's own event loop (the sandboxed process belongs to it)."""
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            threading.Thread(target=_run_loop, args=(self._loop,), name="warm-probe", daemon=True).start()
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def _read_reply(self, timeout: float) -> dict:
        if not self.local:
            assert self._server is not None  # started by _start
            try:
                answer = self._call(self._server.receive(timeout))
            except TimeoutError:
                self._kill()
                raise BlenderProcessError(f"warm probe gave no answer within {timeout:.0f}s; killed") from None
            except ValueError as exc:  # not JSON, or a line past the pipe's limit
                self._kill()
                raise BlenderProcessError(f"warm probe sent a bad reply: {exc}") from None
            if answer is None:
                self._kill()
                raise BlenderProcessError("warm probe process exited")
            return answer
        assert self._reader is not None  # opened by _start_local
        deadline = time.monotonic() + timeout
        # Raw reads split here: a buffered readline could hold the next line (a mutation job's
        # "tried" lines come in bursts) where select() on the descriptor cannot see it.
        fd = self._reader.fileno()
        while b"\n" not in self._pending:
            left = deadline - time.monotonic()
            if left <= 0:
                self._kill()
                raise BlenderProcessError(f"warm probe gave no answer within {timeout:.0f}s; killed")
            ready, _, _ = select.select([fd], [], [], min(left, 1.0))
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    code = self._proc.wait() if self._proc else None
                    self._proc = None
                    raise BlenderProcessError(f"warm probe process exited ({code})")
                self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        return json.loads(line)

    def _send(self, job: dict) -> None:
        try:
            if self.local:
                assert self._proc is not None and self._proc.stdin is not None  # started by _start_local, stdin=PIPE
                self._proc.stdin.write(json.dumps(job) + "\n")
                self._proc.stdin.flush()
            else:
                assert self._server is not None  # started by _start
                self._call(self._server.send(job))
        except (BrokenPipeError, ConnectionResetError) as exc:
            self._kill()
            raise BlenderProcessError("warm probe process is gone") from exc

    def probe(self, blend: Path, task: Path, rubric: Path, out: Path, probes: Path | None = None) -> dict:
        probes = task_probes(rubric, probes)
        with self._lock:
            answer = self._exchange(Path(blend), task, rubric, probes, "probe",
                                    {"out": str(out) if self.local else "/tmp/report.json"})
            if self.local:
                return json.loads(Path(out).read_text(encoding="utf-8"))
            report = answer["report"]
            Path(out).parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(out).with_name(Path(out).name + ".tmp")
            tmp.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
            os.replace(tmp, out)
            return report

    def mutate(self, blend: Path, task: Path, rubric: Path, probes: Path | None = None,
               operators: list[str] | None = None, tried: Callable[[int, int], None] | None = None,
               part: tuple[int, int] | None = None, until_core_fails: bool = False) -> list[dict]:
        """Mutation testing in this warm process: every gaming operator (``mutations.py``)
        applied to ``blend`` in turn -- open, apply, probe in memory, re-open -- one row each
        (operator, applicable, why, criteria, error). ``tried(done, total)`` is told as the
        operators advance.  ``part`` (i, n): only every n-th operator from the i-th
        (``mutate_spread``).  ``until_core_fails``: each mutated scene measured only until a
        core criterion fails, its row's ``unmeasured`` naming the rest (the kill is the same)."""
        probes = task_probes(rubric, probes)
        job: dict = {"cmd": "mutate", "operators": operators}
        if until_core_fails:
            job["until_core_fails"] = True
        if part is not None:
            job["part"] = list(part)
        with self._lock:
            answer = self._exchange(Path(blend), task, rubric, probes, "mutation testing", job, tried)
            rows = answer["mutations"]  # an older probe_server (a bench's "before" grader) sends them in its answer
            if "rows" in answer and len(rows) != answer["rows"]:
                raise BlenderProcessError(f"mutation testing of {blend}: {len(rows)} rows came, "
                                          f"the warm process sent {answer['rows']}")
            return rows

    def _answer(self, tried: Callable[[int, int], None] | None) -> dict:
        """The job's answer within ``self.timeout`` (for a mutation job: of each operator, counted
        from its "tried" line), the "tried" lines before it passed to ``tried``; a mutation job's
        "row" lines (one per operator) come back as its ``mutations``."""
        deadline = time.monotonic() + self.timeout
        rows: list[dict] = []
        while True:
            answer = self._read_reply(max(deadline - time.monotonic(), 0.001))
            if "row" in answer:
                rows.append(answer["row"])
            elif "tried" not in answer:
                return {**answer, "mutations": rows} if "rows" in answer else answer
            else:
                # each operator is its own unit of work: ninety-odd of them on a 120-frame task
                # passed one job-wide deadline on a loaded machine while every one progressed
                deadline = time.monotonic() + self.timeout
                if tried is not None:
                    tried(*answer["tried"])

    def _exchange(self, blend: Path, task: Path, rubric: Path, probes: Path | None, what: str,
                  job: dict, tried: Callable[[int, int], None] | None = None) -> dict:
        """Send one job about ``blend`` (with the task's files; sandboxed, copied in first, the
        delivery removed after) and read its answer; a failed answer raises ``ScriptFailed``
        when the task's own probes raised, else ``BlenderProcessError``.  Caller holds the lock."""
        if not self._running():
            self._start()
        if self.local:
            self._send({"blend": str(blend), "task": str(task), "rubric": str(rubric),
                        "probes": str(probes) if probes else None, **job})
            answer, authored = self._answer(tried), ({str(probes): probes} if probes else {})
        else:
            folder = self._task_folder(task, rubric, probes)
            delivery = f"/tests/delivery/{blend.name}"
            if blend.is_file():
                assert self._server is not None  # started by _start
                self._call(self._server.add_inputs({delivery: blend}))
            try:
                self._send({"blend": delivery, "task": f"{folder}/task.json", "rubric": f"{folder}/rubric.json",
                            **job})
                answer = self._answer(tried)
            finally:
                if self._server is not None:
                    self._server.discard("/tests/delivery")
            authored = {f"{folder}/{TASK_PROBES}": probes} if probes else {}
        self.jobs += 1
        if not answer.get("ok"):
            error = answer.get("error") or ""
            raise script_failure(error, authored) or BlenderProcessError(
                f"{what} of {blend} failed in the warm process:\n{error}")
        return answer

    def _task_folder(self, task: Path, rubric: Path, probes: Path | None) -> str:
        """The sandbox folder holding this task's verifier files (by content: a changed file is
        a new folder), copied in once."""
        start = Path(rubric).with_name(START_SCENE)
        files = {"task.json": task, "rubric.json": rubric, **({TASK_PROBES: probes} if probes else {}),
                 **({START_SCENE: start} if start.is_file() else {})}
        digest = hashlib.sha256(json.dumps(
            {name: hashlib.sha256(Path(p).read_bytes()).hexdigest() for name, p in files.items()},
            sort_keys=True).encode()).hexdigest()[:16]
        folder = f"/tests/task-{digest}"
        if folder not in self._task_dirs:
            assert self._server is not None  # started by _start (_exchange)
            self._call(self._server.add_inputs({f"{folder}/{name}": Path(p) for name, p in files.items()}))
            self._task_dirs.add(folder)
        return folder

    def _kill(self) -> None:
        if self._server is not None:
            server, self._server = self._server, None
            self._call(server.close())
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None

    def close(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            assert self._proc.stdin is not None  # started with stdin=PIPE
            try:
                self._proc.stdin.write(json.dumps({"cmd": "quit"}) + "\n")
                self._proc.stdin.close()
                self._proc.wait(timeout=30)
            except (BrokenPipeError, subprocess.TimeoutExpired, OSError):
                self._kill()
        self._proc = None
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        if self._loop is not None:
            self._kill()  # the sandboxed process holds nothing to save: it goes with its sandbox
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._loop = None


# Warm probes one full mutation test is spread over (mutate_spread): a hundred and fifty
# operators, each an open, an edit and a whole measurement, are a seed's longest activity and,
# at the end of a production, the one thing left running on a machine with idle cores.
MUTATION_PROCESSES = 2


def mutate_spread(probe: WarmProbe, blend: Path, task: Path, rubric: Path, probes: Path | None = None,
                  tried: Callable[[int, int], None] | None = None, *, beside: list[WarmProbe] | None = None,
                  processes: int = MUTATION_PROCESSES, until_core_fails: bool = True) -> list[dict]:
    """``probe.mutate`` of every operator, the operators dealt out over ``probe``, the warm
    probes ``beside`` it (the caller's, of the same code; left open) and as many new ones as
    make ``processes`` (one per core at most), one thread each; the rows come back in the
    operators' order, as one process gives them.  Each operator re-opens the delivery, so which
    process runs it changes no row.  A new helper never waits for a sandbox slot (the
    pre-start's rule: a spread must not hold one slot while it waits for another): one that
    cannot have a slot at once leaves its share to ``probe``, after its own.  Each mutated scene
    is measured until a core criterion fails (``until_core_fails``, the default here: the gate
    needs the kill, and the costly criteria then run for the few operators a cheap one lets
    through -- docs/performance.md)."""
    beside = list(beside or [])[:max(0, processes - 1)]
    n = max(1, min(processes, os.cpu_count() or 1), 1 + len(beside))
    if n == 1:
        return probe.mutate(blend, task, rubric, probes, tried=tried, until_core_fails=until_core_fails)
    isolation = probe.isolation
    if not probe.local:
        isolation = cast(SandboxSettings, isolation).model_copy(update={"slot_wait_sec": 0})
    helpers = [WarmProbe(probe.timeout, probe.log, sandbox=isolation, code=probe.code)
               for _ in range(n - 1 - len(beside))]
    counts: list[tuple[int, int] | None] = [None] * n
    lock = threading.Lock()

    def told(i: int) -> Callable[[int, int], None]:
        def one(done: int, total: int) -> None:
            with lock:
                counts[i] = (done, total)
                known = [c for c in counts if c is not None]
                if tried is not None and len(known) == n:
                    tried(sum(c[0] for c in known), sum(c[1] for c in known))
        return one

    try:
        with concurrent.futures.ThreadPoolExecutor(n, thread_name_prefix="mutate") as pool:
            futures = [pool.submit(w.mutate, blend, task, rubric, probes, None, told(i), (i, n), until_core_fails)
                       for i, w in enumerate([probe, *beside, *helpers])]
            parts = []
            for i, future in enumerate(futures):
                try:
                    parts.append(future.result())
                except SlotUnavailable:  # a helper's start: no slot free now
                    parts.append(probe.mutate(blend, task, rubric, probes, tried=told(i), part=(i, n),
                                               until_core_fails=until_core_fails))
    finally:
        for helper in helpers:
            helper.close()
    if any(len(parts[0]) - len(part) not in (0, 1) for part in parts):
        raise BlenderProcessError(f"mutation testing of {blend}: the processes' rows do not deal out "
                                  f"({[len(part) for part in parts]})")
    return [parts[k % n][k // n] for k in range(sum(len(part) for part in parts))]


def _run_loop(loop: asyncio.AbstractEventLoop) -> None:
    loop.run_forever()
    loop.close()


def snapshot_scene(blend: Path, out: Path, *, frame: int = 1, timeout: float = 600,
                   sandbox: ScriptIsolation = None) -> dict:
    """The snapshot of `blend` (``scene_snapshot.py``: the start scene's fingerprint that the
    ``scene_unchanged`` criterion compares against), written to `out` and returned."""
    job = BlenderJob(sandbox)
    Path(out).unlink(missing_ok=True)  # a stale snapshot must not pass for this run's
    args = ["--blend", job.input(Path(blend), f"/workspace/{Path(blend).name}"),
            "--out", job.output(Path(out), f"/workspace/out/{START_SCENE}"), "--frame", str(int(frame))]
    for name in PROBE_FILES:  # scene_snapshot.py's siblings, next to it in /tests
        job.input(VERIFIERS / name, f"/tests/{name}")
    job.run_blocking(VERIFIERS / "scene_snapshot.py", args, timeout=timeout)
    if not Path(out).is_file():
        raise BlenderProcessError(f"scene_snapshot.py wrote no {Path(out).name}")
    return json.loads(Path(out).read_text(encoding="utf-8"))
