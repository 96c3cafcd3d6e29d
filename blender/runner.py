"""The one way this project runs a bpy script, for every caller: the trials' local backend,
stage 03's workspace build, evidence renders, calibration and the author CLIs, privacy's text
extraction.

    job = BlenderJob(isolation)  # None: ARKEVO_TRIAL_BACKEND decides; LOCAL; SandboxSettings
    args = ["--in", job.input(start, "/workspace/inputs/start.blend"),
            "--script", job.input(solve, "/workspace/solve.py"),
            "--out", job.output(delivery, "/workspace/outputs/result.blend")]
    run = await job.run(APPLY_SCRIPT, args, timeout=600, log=log, authored={...})
    run = job.run_blocking(...)  # the same from sync code (author CLIs, calibration)

`input` / `output` return the path the script sees: the host path unisolated, a sandbox path
sandboxed (the file is copied in before the run, the output copied back after it, links and
devices refused). Blender always runs out of process: a crash or a leak never takes the caller
down, and each run starts from a clean Blender. Model credentials never reach it.

Who a failure belongs to is decided here, once, from what the caller says the run contains:

    author  ScriptFailed          a traceback runs through one of `authored` ({path the script
                                  sees: host file}), or the script printed `marker` (its own
                                  report of an author error), or an author's script left links
                                  where its outputs belong. Named, never retried.
    solver  DeliveryBrokeBlender  the run opened a solver's delivery (`delivery=True`) and
                                  crashed, hung or left no plain files: a graded fact.
    infra   BlenderProcessError   anything else: our own script or Blender failed. Retried.

A sandbox that cannot be set up raises SandboxUnavailable, LaunchFailed or SlotUnavailable
(infrastructure; `sandbox.script_run` says how to opt out on a host without one).

A build whose .blend outputs become part of a task version (the workspace), and an author's
scripts applied to it (`apply_scripts`: gaming samples, the author CLIs), run as
`BlenderJob(isolation, reproducible=True)`: under a frozen clock (Debian's libfaketime),
because Blender seeds two fields from the clock when it creates data (`bNode.identifier`,
`Mesh.face_sets_color_seed`; see `blender.blend_digest`), and with each .blend output
rewritten in canonical form (`sort_unordered_pairs`). The same inputs then give
the same bytes (docs/reproducibility.md).
"""

from __future__ import annotations

import asyncio
import glob
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import ClassVar, Literal, cast

from blender.blend_digest import Unreadable, sort_unordered_pairs
from observability.redaction import is_secret_name
from sandbox.isolation.settings import SandboxSettings
from sandbox.script_run import (LOCAL, ScriptIsolation, ScriptRun, run_sandboxed_script, script_isolation,
                                wait_heartbeating)

BLENDER_SCRIPTS = Path(__file__).resolve().parent
LOG_BYTES = 65536  # how much of a run's log is read back to name a failure

Blame = Literal["author", "solver", "infra"]

# Where Debian's libfaketime lives (one folder per architecture), and the instant a reproducible
# build sees: frozen, monotonic clock included (Blender seeds from the monotonic clock).
FAKETIME_LIBRARY = "/usr/lib/*/faketime/libfaketime.so.1"
FROZEN_AT = "2000-01-01 00:00:00"


class BlenderFailure(Exception):
    """A bpy run that failed; `kind` says whose failure it is (see the module docstring)."""

    kind: ClassVar[Blame]

    def __init__(self, message: str, log_tail: str = "") -> None:
        super().__init__(message)
        self.log_tail = log_tail


class ScriptFailed(BlenderFailure):
    """An author's script raised (a seed's build script, a reference solution, a calibration
    sample, a task's own probes): the author's mistake, not infrastructure. ``problems``:
    [(host file, exception line)], one per failing script."""

    kind = "author"

    def __init__(self, problems: list[tuple[Path, str]], log_tail: str = ""):
        self.problems = problems
        super().__init__("; ".join(f"{file}: {exception}" for file, exception in problems), log_tail)


class DeliveryBrokeBlender(BlenderFailure):
    """Blender crashed, hung or wrote no plain files on a solver's delivery: nothing to read
    from it, and a fact about the delivery (graded), never retried.  ``timed_out``: it ran past
    the time it was given (the grader's budget)."""

    kind = "solver"

    def __init__(self, message: str, log_tail: str = "", *, timed_out: bool = False) -> None:
        super().__init__(message, log_tail)
        self.timed_out = timed_out


class BlenderProcessError(BlenderFailure):
    """Blender exited non-zero, hung, or a warm process died, and no author or delivery is to
    blame: infrastructure, retried (`returncode`: the exit status, negative for a signal; None:
    killed at the timeout or unknown)."""

    kind = "infra"

    def __init__(self, message: str, returncode: int | None = None, log_tail: str = "") -> None:
        super().__init__(message, log_tail)
        self.returncode = returncode


def bpy_python() -> str:
    """The interpreter that has `bpy`: this one unless ARKEVO_BPY_PYTHON says otherwise."""
    return os.environ.get("ARKEVO_BPY_PYTHON", sys.executable)


def blender_env() -> dict[str, str]:
    """The caller's environment less anything secret: no model key reaches a Blender process."""
    return {k: v for k, v in os.environ.items() if not is_secret_name(k)}


class FrozenClockUnavailable(RuntimeError):
    """libfaketime is not installed: a reproducible build cannot run (infrastructure)."""


def frozen_clock_env() -> dict[str, str]:
    """The variables that run a process under a frozen clock (libfaketime)."""
    found = sorted(glob.glob(FAKETIME_LIBRARY))
    if not found:
        raise FrozenClockUnavailable(
            f"no {FAKETIME_LIBRARY}: install Debian's libfaketime (scripts/system-deps.sh does); "
            "a reproducible Blender build needs it")
    return {"LD_PRELOAD": found[0], "FAKETIME": FROZEN_AT, "FAKETIME_NO_CACHE": "1", "TZ": "UTC"}


class BlenderJob:
    """One run of a bpy script, unisolated or sandboxed (see the module docstring)."""

    def __init__(self, isolation: ScriptIsolation = None, *, reproducible: bool = False):
        self.isolation = script_isolation(isolation)
        self.local = self.isolation == LOCAL
        self.reproducible = reproducible
        self.inputs: dict[str, Path] = {}
        self.outputs: dict[str, Path] = {}

    def input(self, host: Path, inside: str) -> str:
        if self.local:
            return str(host)
        if host.exists():  # a missing delivery is missing in there too
            self.inputs[inside] = host
        return inside

    def output(self, host: Path, inside: str) -> str:
        self.outputs[inside] = host  # also unisolated: a reproducible job canonicalises them
        return str(host) if self.local else inside

    async def run(self, script: Path, args: list[str], *, timeout: float, log: Path | None = None,
                  cwd: Path | None = None, inside_cwd: str = "/workspace",
                  authored: dict[str, Path] | None = None, marker: str | None = None,
                  delivery: bool = False) -> ScriptRun:
        """Run `script` with `args` (stdout and stderr to `log`); raise the failure, classified."""
        extra_env = frozen_clock_env() if self.reproducible else {}
        with tempfile.TemporaryDirectory(prefix="arkevo-bpy-") as tmp:
            log = log or Path(tmp) / "run.log"
            log.parent.mkdir(parents=True, exist_ok=True)
            if self.local:
                run = await _run_local(script, args, cwd=cwd, timeout=timeout, log=log, env=extra_env)
            else:
                run = await run_sandboxed_script(
                    script, args, inputs=self.inputs, outputs=self.outputs, timeout=timeout,
                    log=log, settings=cast(SandboxSettings, self.isolation), cwd=inside_cwd,
                    env=extra_env)
            if run.ok and not run.refused:
                if self.reproducible:
                    await asyncio.to_thread(_canonical_blends, self.outputs.values())
                return run
            raise _classify(script, run, _read_tail(log), authored or {}, marker, delivery,
                            timeout, sandboxed=not self.local)

    def run_blocking(self, script: Path, args: list[str], **kwargs) -> ScriptRun:
        """`run` from sync code, on a fresh event loop in a helper thread. The thread starts
        with an empty context: called from an activity's thread (`in_thread`, which heartbeats
        for it), this run must not heartbeat from a loop that is not the activity's."""
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, self.run(script, args, **kwargs)).result()


def _canonical_blends(outputs) -> None:
    """Each .blend output in canonical form; one this reader does not understand (compressed,
    say) stays as written, so its bytes may differ from run to run."""
    for host in outputs:
        if host.suffix == ".blend" and host.is_file():
            try:
                sort_unordered_pairs(host)
            except Unreadable:
                pass


async def run(script: Path, args: list[str], isolation: ScriptIsolation = None, **kwargs) -> ScriptRun:
    """A run whose arguments need no sandbox paths (`BlenderJob` maps files in and out)."""
    return await BlenderJob(isolation).run(script, args, **kwargs)


async def _run_local(script: Path, args: list[str], *, cwd: Path | None, timeout: float,
                     log: Path, env: dict[str, str]) -> ScriptRun:
    started = time.monotonic()
    with open(log, "wb") as out:
        proc = await asyncio.create_subprocess_exec(
            bpy_python(), str(script), *args, cwd=str(cwd) if cwd else None, stdout=out, stderr=out,
            env={**blender_env(), **env}, start_new_session=True)
        try:
            finished = await wait_heartbeating(proc, timeout, script.name)
        finally:  # at the timeout, or cancelled: nothing it started outlives it
            if proc.returncode is None:
                try:
                    os.killpg(proc.pid, 9)
                except ProcessLookupError:
                    pass
                await proc.wait()
    return ScriptRun(proc.returncode if finished else None, time.monotonic() - started,
                      _read_tail(log)[-4000:])


def _classify(script: Path, run: ScriptRun, log: str, authored: dict[str, Path],
              marker: str | None, delivery: bool, timeout: float, *, sandboxed: bool) -> BlenderFailure:
    where = " (sandboxed)" if sandboxed else ""
    if run.returncode == 0:  # it ran, but left links or devices where its outputs belong
        what = f"left no plain files as its outputs ({'; '.join(run.refused)})"
    elif run.timed_out:
        what = f"still running after {timeout:.0f}s{where}; killed"
    else:
        what = f"exited with {run.returncode}{where}"
    if run.returncode != 0 and (failed := script_failure(log, authored, marker)) is not None:
        return failed
    if authored and run.returncode == 0:
        return ScriptFailed([(next(iter(authored.values())), what)], log[-4000:])
    if delivery:
        return DeliveryBrokeBlender(f"{script.name} {what} on this delivery\nlog tail:\n{log[-1000:]}",
                                    log[-4000:], timed_out=run.timed_out)
    return BlenderProcessError(f"{script.name} {what}\nlog tail:\n{log[-3000:].strip()}",
                               run.returncode, log[-4000:])


def script_failure(log: str, authored: dict[str, Path], marker: str | None = None) -> ScriptFailed | None:
    """ScriptFailed naming the host file when the traceback in `log` runs through one of the
    `authored` scripts ({path the process saw: host file}), or the process printed `marker`
    (its own report of an author error: the report's last line names the exception); None
    when neither: the failure is not the author's."""
    for seen, host in authored.items():
        if any(f'File "{path}"' in log for path in (seen, str(host), str(host.resolve()))):
            return ScriptFailed([(host, _exception_line(log))], log[-4000:])
    if marker and marker in log and authored:
        report = log[log.rfind(marker) + len(marker):].strip().splitlines()
        return ScriptFailed([(next(iter(authored.values())), report[-1].strip() if report else "failed")],
                            log[-4000:])
    return None


def _exception_line(log: str) -> str:
    """The exception line of the last traceback in `log` (after its last frame)."""
    after = log[log.rfind('  File "'):].splitlines()[1:]
    return next((line for line in after if line and not line[0].isspace()), "failed")


def _read_tail(log: Path) -> str:
    try:
        with open(log, "rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - LOG_BYTES))
            return f.read().decode("utf-8", "replace")
    except FileNotFoundError:
        return ""
