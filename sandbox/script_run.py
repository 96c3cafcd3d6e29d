"""Run one bpy script in the isolation of a trial: for outside code the worker runs outside
any trial (a seed's build script, a reference .blend, a delivery opened for evidence renders).

    run = await run_sandboxed_script(
        BUILD_WORKSPACE, ["--reference", "/workspace/seed/materials/build_reference.py", ...],
        inputs={"/workspace/seed": host_seed_dir}, outputs={"/workspace/out/start.blend": dest},
        timeout=600, log=work / "build.log")

Built on `TrialSandbox` (not Harbor): its own slot user, Landlock, the loopback-only network
and pid namespaces, rlimits and a cgroup. Nothing of the host goes in but the listed `inputs`
(copied into the slot: into /workspace for the slot user, into /tests read-only) and the script
itself (root's, read-only, in /tests); the venv is bound read-only as for trials, the MCP
runtime is left out. When the script has ended, everything it started is killed, then the
worker copies back only the named `outputs`, refusing links and anything not a plain file or
folder.

`SandboxedServer` keeps one such script running (a warm probe) and speaks JSON lines with it.

Errors: `SandboxUnavailable`, `LaunchFailed` or `SlotUnavailable` mean the sandbox could not
be set up (infrastructure, retry); a host that cannot run it at all is told the switch
(`ARKEVO_TRIAL_BACKEND=local`). A script that ran and failed (non-zero exit, killed at the
timeout) is a returned `ScriptRun` for the caller to name.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal

from temporalio import activity

from sandbox.isolation.layout import Layout, SandboxPathError
from observability.heartbeats import HEARTBEAT_SECONDS
from sandbox.isolation.settings import SandboxSettings
from sandbox.isolation.slots import SlotUnavailable
from sandbox.isolation.trial import LaunchFailed, SandboxUnavailable, TrialSandbox

WORKDIR = PurePosixPath("/workspace")
SCRIPTS = PurePosixPath("/tests")  # root-owned and read-only inside: the script cannot change itself
LOG_TAIL_BYTES = 4000
# A fork server costs ~1.5 CPU-s to start (bpy and the MCP server's libraries) and is ready ~1 s
# later: a process starts one for its script runs only at the third that asks (the two before
# run cold). A short command (`arkevo seed measure`: one build, one script applied, one probe)
# then starts none it would not use; a worker or a calibration uses one from then on.
SCRIPT_RUNS_BEFORE_A_FORK_SERVER = 2

# How the worker runs Blender on outside code, as its activity classes take it: None = this
# sandbox with default settings, SandboxSettings = this sandbox with those, LOCAL = the old
# unisolated subprocess, for hosts that cannot run the sandbox (ARKEVO_TRIAL_BACKEND=local).
LOCAL: Literal["local"] = "local"
ScriptIsolation = SandboxSettings | Literal["local"] | None
NO_SANDBOX_SWITCH = ("to run Blender on outside code unisolated on this host, set "
                     "ARKEVO_TRIAL_BACKEND=local (the authoring CLIs: --no-sandbox)")

__all__ = ["LOCAL", "LaunchFailed", "SandboxUnavailable", "SandboxedServer", "ScriptIsolation",
           "ScriptRun", "SlotUnavailable", "run_sandboxed_script", "script_isolation"]


def script_isolation(isolation: ScriptIsolation = None) -> SandboxSettings | Literal["local"]:
    """What an unset choice means outside the worker's pools (author CLIs, scorer, calibration):
    the project's one switch decides, ARKEVO_TRIAL_BACKEND=local = unisolated, else the sandbox
    with default settings. An explicit LOCAL or SandboxSettings is kept."""
    if isolation is not None:
        return isolation
    kind = os.environ.get("ARKEVO_TRIAL_BACKEND", "sandbox")
    if kind not in ("sandbox", "local"):
        raise ValueError(f"ARKEVO_TRIAL_BACKEND={kind!r}: expected 'sandbox' or 'local'")
    return LOCAL if kind == "local" else SandboxSettings()


@dataclass
class ScriptRun:
    returncode: int | None  # None: killed at the timeout
    seconds: float
    log_tail: str
    copied: dict[str, Path] = field(default_factory=dict)  # sandbox path -> host copy
    refused: list[str] = field(default_factory=list)  # outputs (or parts) not copied, and why
    limits_hit: dict[str, int] = field(default_factory=dict)  # oom_kills, pids_limit_hits

    @property
    def timed_out(self) -> bool:
        return self.returncode is None

    @property
    def ok(self) -> bool:
        return self.returncode == 0


async def run_sandboxed_script(script: Path, args: list[str], *, inputs: dict[str, Path],
                               outputs: dict[str, Path], timeout: float, log: Path,
                               settings: SandboxSettings | None = None, cwd: str = str(WORKDIR),
                               memory_mb: int | None = None, env: dict[str, str] | None = None) -> ScriptRun:
    """Run `python3 /tests/<script.name> *args` in a fresh sandbox; stdout+stderr go to `log`.
    `env` is set for the script's process alone, through `/usr/bin/env`, not for the sandbox's
    launcher (with libfaketime preloaded into the launcher too, the script died on a
    shared-memory semaphore it was not allowed to open); nothing of the worker's environment is
    passed.

    `inputs`/`outputs` map sandbox paths (under /workspace or /tests; outputs under a
    writable root) to host paths. Raises only when the sandbox cannot be set up."""
    sandbox = await _open_sandbox(script, settings, memory_mb)
    log.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    try:
        layout = sandbox.layout
        assert layout is not None and sandbox.slot is not None  # opened by _open_sandbox
        for path in outputs:
            if not layout.locate(path)[0].writable:
                raise SandboxPathError(f"{path}: outputs must lie in a writable sandbox folder")
        owner = (sandbox.slot.uid, sandbox.slot.gid)
        await asyncio.to_thread(_copy_in, layout, owner,
                                {**inputs, str(SCRIPTS / script.name): script})
        with open(log, "wb") as out:
            # Forked, bpy already imported, by the worker's fork server where one is ready (`env`:
            # by the one started under those variables, a frozen clock; isolation/forkserver.py).
            process, group = await sandbox.launch(
                [*_with_env(env), sandbox.python, str(SCRIPTS / script.name), *args], env={}, cwd=cwd,
                stdout=out, stderr=asyncio.subprocess.STDOUT, kind="script", forkable=True,
                fork_server_after=SCRIPT_RUNS_BEFORE_A_FORK_SERVER)
        try:
            finished = await wait_heartbeating(process, timeout, f"{script.name} (sandboxed)")
        finally:
            # Whatever the script left running dies before the worker reads its outputs.
            limits_hit = await sandbox.end(process, group, kill=True)
        run = ScriptRun(process.returncode if finished else None, time.monotonic() - started,
                        _tail(log), limits_hit={k: v for k, v in limits_hit.items()
                                                if k in ("oom_kills", "pids_limit_hits")})
        await asyncio.to_thread(_copy_out, layout, outputs, run)
        return run
    finally:
        await sandbox.close()


def _with_env(env: dict[str, str] | None) -> list[str]:
    return ["/usr/bin/env", *(f"{k}={v}" for k, v in env.items())] if env else []


async def _open_sandbox(script: Path, settings: SandboxSettings | None,
                        memory_mb: int | None) -> TrialSandbox:
    settings = (settings or SandboxSettings()).model_copy(update={"runtime_dir": None})
    sandbox = TrialSandbox(settings, name=f"script-{script.stem}", workdir=WORKDIR,
                           memory_bytes=settings.memory_bytes(memory_mb))
    try:
        await sandbox.open()
    except SandboxUnavailable as exc:  # never a silent fallback: say how to opt out
        raise SandboxUnavailable(f"{exc}; {NO_SANDBOX_SWITCH}") from None
    return sandbox


class SandboxedServer:
    """One long-lived script in its own sandbox (a warm probe): requests as JSON lines on its
    stdin, one JSON line back on its stdout per request; its stderr goes to `log`. Inputs are
    added while it runs only under the read-only /tests, where nothing sandboxed can plant a
    link for the worker to follow. `close()` kills it and everything it started."""

    def __init__(self, sandbox: TrialSandbox, process: asyncio.subprocess.Process | None,
                 group) -> None:
        self.sandbox, self.process, self.group = sandbox, process, group

    @classmethod
    async def start(cls, script: Path, args: list[str], *, inputs: dict[str, Path],
                    log: Path | None, settings: SandboxSettings | None = None,
                    cwd: str = str(WORKDIR)) -> SandboxedServer:
        sandbox = await _open_sandbox(script, settings, None)
        try:
            server = cls(sandbox, None, None)
            await server.add_inputs({**inputs, str(SCRIPTS / script.name): script})
            err = open(log, "ab") if log else asyncio.subprocess.DEVNULL
            try:
                server.process, server.group = await sandbox.launch(
                    [sandbox.python, str(SCRIPTS / script.name), *args], env={}, cwd=cwd,
                    stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=err,
                    kind="server", forkable=True, fork_server_after=SCRIPT_RUNS_BEFORE_A_FORK_SERVER)
            finally:
                if log:
                    assert not isinstance(err, int)  # the log file opened above
                    err.close()
            return server
        except BaseException:
            await sandbox.close()
            raise

    async def add_inputs(self, files: dict[str, Path]) -> None:
        layout = self.sandbox.layout
        assert layout is not None  # opened by _open_sandbox
        for path in files:
            if layout.locate(path)[0].writable:
                raise SandboxPathError(f"{path}: a running server's inputs go under {SCRIPTS}")
        await asyncio.to_thread(_copy_in, layout, None, files)

    def discard(self, path: str) -> None:
        """Remove an input again (worker-side; /tests is root's)."""
        assert self.sandbox.layout is not None  # opened by _open_sandbox
        root, rel = self.sandbox.layout.locate(path)
        target = root.host / rel
        if target.is_dir():
            shutil.rmtree(target)
        else:
            target.unlink(missing_ok=True)

    async def send(self, message: dict) -> None:
        assert self.process is not None and self.process.stdin is not None  # PIPE, set by start()
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        await self.process.stdin.drain()

    async def receive(self, timeout: float) -> dict | None:
        """The next reply; None once the script has ended. TimeoutError at the timeout."""
        assert self.process is not None and self.process.stdout is not None  # PIPE, set by start()
        line = await asyncio.wait_for(self.process.stdout.readline(), timeout)
        return json.loads(line) if line else None

    async def close(self) -> None:
        if self.process is not None:
            await self.sandbox.end(self.process, self.group, kill=True)
        await self.sandbox.close()


async def wait_heartbeating(process: asyncio.subprocess.Process, timeout: float,
                            name: str) -> bool:
    """True once the process exited, False at the timeout; heartbeats inside an activity."""
    deadline = time.monotonic() + timeout
    waiter = asyncio.ensure_future(process.wait())
    try:
        while (left := deadline - time.monotonic()) > 0:
            done, _ = await asyncio.wait({waiter}, timeout=min(HEARTBEAT_SECONDS, left))
            if done:
                return True
            if activity.in_activity():
                activity.heartbeat(f"{name} running")
        return False
    finally:
        waiter.cancel()


def _copy_in(layout: Layout, owner: tuple[int, int] | None, files: dict[str, Path]) -> None:
    """Worker-side copies into the fresh slot, before any sandboxed process exists: the slot
    user owns what lands in a writable folder; the read-only folders stay root's."""
    for target, source in files.items():
        root, rel = layout.locate(target)
        who = owner if root.writable else None
        dest = root.host
        for part in rel.parts[:-1]:  # parents the slot user may write into
            dest = dest / part
            if not dest.exists():
                dest.mkdir()
                _own(dest, who, 0o755)
        dest = root.host / rel
        if source.is_symlink() or not (source.is_file() or source.is_dir()):
            raise ValueError(f"sandbox input {source} is not a plain file or folder")
        if source.is_file():
            shutil.copyfile(source, dest)
            _own(dest, who, 0o644)
            continue
        for folder, dirs, names in os.walk(source):
            here = dest / Path(folder).relative_to(source)
            here.mkdir(exist_ok=True)
            _own(here, who, 0o755)
            for name in names + [d for d in dirs if (Path(folder) / d).is_symlink()]:
                item = Path(folder) / name
                if item.is_symlink() or not item.is_file():
                    raise ValueError(f"sandbox input {item} is not a plain file")
                shutil.copyfile(item, here / name)
                _own(here / name, who, 0o644)


def _own(path: Path, owner: tuple[int, int] | None, mode: int) -> None:
    if owner is not None:
        os.chown(path, *owner)
    path.chmod(mode)


def _copy_out(layout: Layout, outputs: dict[str, Path], run: ScriptRun) -> None:
    """Copy the named outputs back. Every sandboxed process is dead by now, so nothing can
    swap a file for a link between the checks and the copy; a link anywhere on the way, or
    anything not a plain file or folder, is refused, never followed."""
    for path, dest in outputs.items():
        root, rel = layout.locate(path)
        source = root.host
        for part in rel.parts:
            source = source / part
            if source.is_symlink():
                run.refused.append(f"{path}: {source.relative_to(root.host)} is a link")
                break
            if not source.exists():
                break
        else:
            mode = source.lstat().st_mode
            if stat.S_ISREG(mode):
                _copy_file(source, dest)
            elif stat.S_ISDIR(mode):
                _copy_tree(source, dest, path, run)
            else:
                run.refused.append(f"{path}: not a plain file or folder")
                continue
            run.copied[path] = dest


def _copy_file(source: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW)
    with open(fd, "rb") as src, open(dest, "wb") as out:
        shutil.copyfileobj(src, out)


def _copy_tree(source: Path, dest: Path, label: str, run: ScriptRun) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    for folder, dirs, names in os.walk(source):  # never descends into linked folders
        here = dest / Path(folder).relative_to(source)
        here.mkdir(exist_ok=True)
        for name in names + dirs:
            item = Path(folder) / name
            mode = item.lstat().st_mode
            if stat.S_ISDIR(mode):
                continue
            if stat.S_ISREG(mode):
                _copy_file(item, here / name)
            else:
                run.refused.append(f"{label}/{item.relative_to(source)}: not a plain file")


def _tail(log: Path) -> str:
    with open(log, "rb") as f:
        f.seek(max(0, f.seek(0, os.SEEK_END) - LOG_TAIL_BYTES))
        return f.read().decode("utf-8", "replace")
