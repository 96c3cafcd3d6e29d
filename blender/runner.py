"""Runs a standalone bpy script in a fresh Python process, heartbeating while it works.

Blender runs out of process so a crash or a leak never takes the worker down, and so each run
starts from a clean Blender state. A non-zero exit is an infrastructure failure (retryable);
what the script measured is read back from files, never from its output.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from observability.redaction import is_secret_name
from sandbox.script_run import wait_heartbeating

BLENDER_SCRIPTS = Path(__file__).resolve().parent


class BlenderProcessError(Exception):
    """Blender exited non-zero or timed out: infrastructure, retried by Temporal, unless the
    caller knows better (`returncode`: the exit status, negative for a signal; None: timed out)."""

    def __init__(self, message: str, returncode: int | None = None) -> None:
        super().__init__(message)
        self.returncode = returncode


@dataclass
class BpyRun:
    returncode: int
    seconds: float
    log_tail: str


def bpy_python() -> str:
    """The interpreter that has `bpy`: this one unless ARKEVO_BPY_PYTHON says otherwise."""
    return os.environ.get("ARKEVO_BPY_PYTHON", sys.executable)


async def run_bpy(script: Path, args: list[str], *, cwd: Path, timeout: float, log: Path) -> BpyRun:
    """Run `script` with `args`; stdout+stderr go to `log`. Raises BlenderProcessError."""
    log.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    env = {k: v for k, v in os.environ.items() if not is_secret_name(k)}  # no keys into Blender
    with open(log, "wb") as out:
        proc = await asyncio.create_subprocess_exec(
            bpy_python(), str(script), *args, cwd=str(cwd), stdout=out, stderr=out, env=env,
            start_new_session=True,
        )
        try:
            if not await wait_heartbeating(proc, timeout, script.name):
                raise BlenderProcessError(f"{script.name} still running after {timeout:.0f}s; killed")
        except BaseException:
            _kill_group(proc)
            await proc.wait()
            raise
    tail = _tail(log)
    run = BpyRun(proc.returncode or 0, time.monotonic() - started, tail)
    if proc.returncode != 0:
        raise BlenderProcessError(
            f"{script.name} exited with {proc.returncode} after {run.seconds:.1f}s; log tail:\n{tail}",
            proc.returncode,
        )
    return run


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(proc.pid, 9)
    except ProcessLookupError:
        pass


def _tail(log: Path, limit: int = 2000) -> str:
    data = log.read_bytes()[-limit:]
    return data.decode("utf-8", "replace")
