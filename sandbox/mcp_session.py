"""Worker-side MCP session with a Blender that runs inside a trial's sandbox.

    async with BlenderMcpSession(environment, McpSessionConfig()) as session:
        tools = await session.list_tools()
        result = await session.call_tool("execute_blender_code", {"code": "..."})
        await session.save("outputs/result.blend")

Two long-lived processes are spawned inside the sandbox through ``environment.spawn``: the
headless Blender host (``sandbox/runtime/blender_mcp_host.py``, importable as
``blender_mcp_host`` because the runtime folder is on the sandbox's PYTHONPATH), which opens the
start .blend and serves the add-on protocol on loopback, and the stock MCP server
(``python -m blender_mcp.server``), which talks to it over the sandbox's own loopback.  The worker
speaks MCP with the server over the spawned process's stdin/stdout, so only MCP tool calls cross
the sandbox boundary; no worker environment variable is passed in (keys stay on the worker).

The environment needs only ``spawn(argv, *, env=None, cwd=None)`` returning an
``asyncio.subprocess.Process`` with stdin/stdout/stderr pipes, and a ``python`` property. One
whose ``private_loopback`` is true (the sandbox: a network namespace per trial) gets the host on
the fixed ``OWN_LOOPBACK_PORT`` and the server spawned right after the host, so that the two
start-ups overlap; elsewhere the host picks a free port and the server starts once it listens.
Before the first tool call, a host or server that dies or never gets ready raises
``McpSessionError``: an infrastructure failure.  From the first tool call on, the host is in the
caller's hands: a host that dies raises ``BlenderHostDied``, one that does not answer a call
within ``tool_timeout_sec`` (or the stock server's own 180 s) raises ``BlenderHostHung``, and a
save that fails with the host alive raises ``DeliverySaveFailed``; the agent decides whose call
that was (docs/failures.md).

Liveness (``HostLiveness``, docs/failures.md "Chaos tests"): inside ``watching(liveness)`` --
the trial activity sets it around Harbor's trial -- every session registers, pings its host
over its stdin once a second (the host echoes the number on stdout from a thread of its own)
and samples the CPU time of the host's processes; ``liveness.silent_sec()`` is how long a host
has shown neither sign of life while its state is infrastructure's: before the agent's first
tool call, or when the host was already silent as that call began.  From a first call made on a
live host on, a host that stops answering is the call's, as above.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import json
import logging
import os
import re
import signal
import time
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any, Protocol, TextIO

import anyio
import httpx
from mcp import ClientSession, types
from mcp.shared.exceptions import McpError
from mcp.shared.message import SessionMessage
from pydantic import BaseModel, ConfigDict, Field

logger = logging.getLogger(__name__)

READY_MARKER = "ARKEVO_MCP_HOST_READY"  # printed by blender_mcp_host once it listens
# The host's port where the environment's loopback is the session's alone (`private_loopback`:
# the sandbox's own network namespace, one session per trial): blender-mcp's default.
OWN_LOOPBACK_PORT = 9876
ALIVE_MARKER = "ARKEVO_MCP_HOST_ALIVE"  # its answer to a liveness ping (--answer-pings)
_ALIVE = re.compile(ALIVE_MARKER + r" ?(\d*)")
PING_INTERVAL_SEC = 1.0  # a watched host is pinged (and its CPU time sampled) this often
PING_GRACE_SEC = 2.0  # a ping unanswered for longer counts as silence (from when it was sent)
SAVE_MARKER = "ARKEVO_SAVED"
_CHUNK = 1 << 16
# What the stock server answers when its socket to the host breaks or times out (blender_mcp
# server.py): the host has died, or its main thread is stuck.
HOST_LOST = re.compile(r"Connection closed before receiving any data|Connection to Blender lost"
                       r"|Could not connect to Blender|Not connected to Blender|No data received")
HOST_TIMEOUT = "Timeout waiting for Blender response"
HANDSHAKE_SEC = 30.0  # a pre-started host must answer a ping within this at its hand-over
HOST_EXIT_GRACE_SEC = 5.0  # a lost connection: how long to wait for the host's exit to be seen


def ready_port(line: str) -> int:
    """The port on the host's readiness line. raw_decode: the host writes the line in one
    write(2), but text another writer appends before the newline must not cost the trial."""
    return int(json.JSONDecoder().raw_decode(line.split(READY_MARKER, 1)[1].lstrip())[0]["port"])


class McpSessionError(RuntimeError):
    """The MCP plumbing in the sandbox failed (infrastructure): retry the trial, never score it."""


class BlenderHostFailure(McpSessionError):
    """After a tool call was made, the host died, stopped answering, or could not save;
    `evidence` holds the call index, exit code or timeout, and the host's log tail.  Whose fault
    it is depends on who made the calls: the agent decides."""

    def __init__(self, message: str, evidence: dict[str, Any]) -> None:
        super().__init__(message)
        self.evidence = evidence


class BlenderHostDied(BlenderHostFailure):
    pass


class BlenderHostHung(BlenderHostFailure):
    pass


class DeliverySaveFailed(BlenderHostFailure):
    """The host is alive but saving the open scene failed (e.g. a solver's handler broke it)."""


def failure_record(kind: str, exc: BlenderHostFailure) -> dict[str, Any]:
    """The ``TrialFailure`` shape (contracts/payloads/trials.py) agents put in ``context.metadata``."""
    return {"kind": kind, "type": type(exc).__name__, "message": str(exc), "evidence": exc.evidence}


class HostLiveness:
    """The Blender hosts of one trial as the worker sees them, for its heartbeat.

    Set with ``watching(liveness)`` around the trial (activities/trial_backends.py); every
    ``BlenderMcpSession`` started inside registers itself, pings its host and samples its CPU
    time. A host shows life by answering a ping (its stdin thread: pure-Python work on the main
    thread does not stop it) or by using CPU (a long call in C that holds the GIL); a stopped or
    frozen process does neither.
    """

    def __init__(self) -> None:
        self._sessions: set[BlenderMcpSession] = set()

    def add(self, session: BlenderMcpSession) -> None:
        self._sessions.add(session)

    def discard(self, session: BlenderMcpSession) -> None:
        self._sessions.discard(session)

    def silent_sec(self) -> float | None:
        """The longest a registered host has shown no sign of life while infrastructure is
        answerable for it; None when no host is judged (none started, exited, or the agent's
        first call found it alive)."""
        now = time.monotonic()
        silences = [t for t in (s.host_silent_sec(now) for s in list(self._sessions)) if t is not None]
        return max(silences, default=None)

    def kill_silent_hosts(self, at_least: float) -> list[int]:
        """SIGKILL the processes of every host silent for `at_least` seconds (a stopped one
        cannot obey its stdin closing); returns their pids."""
        now = time.monotonic()
        return [pid for s in list(self._sessions) if (s.host_silent_sec(now) or 0.0) >= at_least
                for pid in s.kill_host()]


_LIVENESS: contextvars.ContextVar[HostLiveness | None] = contextvars.ContextVar(
    "arkevo_host_liveness", default=None)


@contextlib.contextmanager
def watching(liveness: HostLiveness):
    """Sessions started in tasks created inside this block register with `liveness` (a task
    copies the context it is created in)."""
    token = _LIVENESS.set(liveness)
    try:
        yield liveness
    finally:
        _LIVENESS.reset(token)


def process_tree(pid: int) -> list[int]:
    """`pid` and its descendants, from /proc (children of every thread)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            threads = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for tid in threads:
            try:
                with open(f"/proc/{current}/task/{tid}/children") as f:
                    todo.extend(int(child) for child in f.read().split())
            except (OSError, ValueError):
                continue
    return found


def launch_pids(process: asyncio.subprocess.Process) -> list[int]:
    """A spawned process and what runs for it: the environment's own list where it keeps one
    (ArkevoSandboxEnvironment: the launch's cgroup, since a command forked by the sandbox's
    fork server is not a descendant of its bwrap), else the process tree."""
    pids_of = getattr(process, "arkevo_launch_pids", None)
    if pids_of is None:
        return list(reversed(process_tree(process.pid)))  # innermost first
    return [*sorted(set(pids_of()) - {process.pid}), process.pid]


def cpu_ticks(pids: list[int]) -> int | None:
    """utime + stime (clock ticks) of the processes still there; None when none is."""
    total, seen = 0, False
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        total, seen = total + int(fields[11]) + int(fields[12]), True  # fields 14 and 15
    return total if seen else None


class SpawningEnvironment(Protocol):
    """What this module needs from a Harbor environment (ArkevoSandboxEnvironment offers it)."""

    @property
    def python(self) -> str: ...

    async def spawn(self, argv: list[str], *, env: dict[str, str] | None = None,
                    cwd: str | None = None) -> asyncio.subprocess.Process: ...


def require_spawning(environment: object) -> None:
    """Fail early, with a clear message, on an environment that cannot host an MCP session."""
    missing = [attr for attr in ("spawn", "python") if not hasattr(environment, attr)]
    if missing:
        raise McpSessionError(
            f"{type(environment).__name__} has no {' or '.join(missing)}: MCP agents need an "
            "environment that can spawn long-lived processes (ArkevoSandboxEnvironment)"
        )


class McpSessionConfig(BaseModel):
    """Where things are inside the sandbox and how long to wait for them."""

    model_config = ConfigDict(extra="forbid")

    workdir: str = Field(default="/workspace", description="working directory of both processes")
    blend: str = Field(default="inputs/start.blend", description=".blend the host opens (relative to workdir)")
    port: int = Field(default=0, ge=0, le=65535,
                      description="host port on the sandbox loopback; 0: OWN_LOOPBACK_PORT in an "
                                  "environment with a loopback of its own (the MCP server then "
                                  "starts alongside the host), else the host picks one")
    state_dir: str = Field(default="/tmp/blender-mcp",
                           description="XDG data/config home for blender_mcp's own state files, "
                                       "kept out of the workspace")
    startup_timeout_sec: float = Field(default=180.0, gt=0, description="host ready + MCP initialize")
    tool_timeout_sec: float = Field(default=300.0, gt=0,
                                    description="one tool call; a host that takes longer is hung")
    shutdown_timeout_sec: float = Field(default=15.0, gt=0, description="per process, before it is killed")


# blender_mcp's telemetry switches (see blender_mcp/telemetry.py); the sandbox has no network
# either, this keeps it from trying.
TELEMETRY_OFF = {"DISABLE_TELEMETRY": "1", "BLENDER_MCP_DISABLE_TELEMETRY": "1",
                 "MCP_DISABLE_TELEMETRY": "1"}


class _ProcessLog:
    """Drains a spawned process's pipes so it never blocks on a full pipe; keeps the tail."""

    def __init__(self, name: str, path: Path | None, keep: int = 200,
                 consume=None) -> None:
        self.name = name
        self.tail: collections.deque[str] = collections.deque(maxlen=keep)
        self._consume = consume  # line -> what of it to keep (None: nothing)
        self._file: TextIO | None = None
        self.write_to(path)
        self._tasks: list[asyncio.Task] = []

    def write_to(self, path: Path | None, consume=None) -> None:
        """Log to `path` from now on, starting with the tail so far (a pre-started process's
        log handed to the trial that adopts it)."""
        if consume is not None:
            self._consume = consume
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        file = path.open("a", encoding="utf-8", errors="replace")
        file.writelines(line + "\n" for line in self.tail)
        file.flush()
        self._file = file

    def add(self, line: str) -> None:
        if self._consume is not None and (line := self._consume(line)) is None:
            return
        self.tail.append(line)
        if self._file:
            self._file.write(line + "\n")
            self._file.flush()

    def drain(self, stream: asyncio.StreamReader | None, pending: bytes = b"") -> None:
        if stream is not None:
            self._tasks.append(asyncio.create_task(self._pump(stream, pending)))

    async def _pump(self, stream: asyncio.StreamReader, buffer: bytes) -> None:
        # read() in chunks, not readline(): a long line would overrun StreamReader's limit.
        while chunk := await stream.read(_CHUNK):
            *lines, buffer = (buffer + chunk).split(b"\n")
            for line in lines:
                self.add(line.decode("utf-8", "replace"))
        for line in buffer.split(b"\n") if buffer else ():
            self.add(line.decode("utf-8", "replace"))

    def text(self) -> str:
        return "\n".join(self.tail)

    async def flush(self, timeout: float = 2.0) -> None:
        """Wait (bounded) until the pipes of an exited process are read to the end."""
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=timeout)

    async def close(self) -> None:
        await self.flush()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._file:
            self._file.close()


@asynccontextmanager
async def process_transport(process: asyncio.subprocess.Process):
    """MCP read/write streams over a spawned process's stdout/stdin.

    The same framing as ``mcp.client.stdio.stdio_client`` (one JSON-RPC message per line), for
    a process someone else started: here, inside the sandbox.
    """
    if process.stdin is None or process.stdout is None:
        raise McpSessionError("spawned MCP server has no stdin/stdout pipes")
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def read_stdout() -> None:
        buffer = b""
        assert process.stdout is not None  # checked above
        async with read_writer:
            while chunk := await process.stdout.read(_CHUNK):
                *lines, buffer = (buffer + chunk).split(b"\n")
                for line in lines:
                    if not line.strip():
                        continue
                    try:
                        message = types.JSONRPCMessage.model_validate_json(line)
                    except Exception as exc:  # the session reports it; the stream goes on
                        await read_writer.send(exc)
                        continue
                    await read_writer.send(SessionMessage(message))

    async def write_stdin() -> None:
        assert process.stdin is not None  # checked above
        async with write_reader:
            async for session_message in write_reader:
                data = session_message.message.model_dump_json(by_alias=True, exclude_none=True)
                process.stdin.write(data.encode("utf-8") + b"\n")
                await process.stdin.drain()

    async with anyio.create_task_group() as tg:
        tg.start_soon(read_stdout)
        tg.start_soon(write_stdin)
        try:
            yield read_stream, write_stream
        finally:
            tg.cancel_scope.cancel()
            for stream in (read_stream, write_stream):
                await stream.aclose()


async def _stop_process(process: asyncio.subprocess.Process, timeout: float, kill: bool = False) -> None:
    """Close stdin (the polite signal both processes obey), then terminate, then kill; with
    `kill`, straight to kill (a process stuck in a call obeys neither)."""
    if process.returncode is not None:
        return
    if process.stdin is not None and not process.stdin.is_closing():
        process.stdin.close()
    for escalate in (process.kill,) if kill else (None, process.terminate, process.kill):
        if escalate is not None:
            with contextlib.suppress(ProcessLookupError):
                escalate()
        try:
            await asyncio.wait_for(process.wait(), timeout)
            return
        except asyncio.TimeoutError:
            continue


def tool_result_text(result: types.CallToolResult) -> str:
    """The text of a tool result; images and other non-text parts are named, not inlined."""
    parts = []
    for item in result.content:
        if isinstance(item, types.TextContent):
            parts.append(item.text)
        else:
            parts.append(f"[{item.type} content omitted]")
    return "\n".join(parts)


def save_code(path: str) -> str:
    """bpy code that saves the open scene as an uncompressed copy (the delivery format)."""
    return (
        "import os, bpy\n"
        f"_path = os.path.abspath({path!r})\n"
        "os.makedirs(os.path.dirname(_path), exist_ok=True)\n"
        "bpy.ops.wm.save_as_mainfile(filepath=_path, compress=False, copy=True)\n"
        f"print({SAVE_MARKER!r}, _path, os.path.getsize(_path))\n"
    )


class BlenderMcpSession:
    """An MCP client session with Blender inside the sandbox; use as an async context manager.

    ``start``/``close`` (or ``async with``) must run in the same task: the MCP session keeps a
    task group open in between.
    """

    def __init__(self, environment: SpawningEnvironment, config: McpSessionConfig | None = None,
                 *, log_dir: Path | None = None) -> None:
        self.environment = environment
        self.config = config or McpSessionConfig()
        self.log_dir = log_dir
        self.host_log, self.server_log = self._new_logs()
        self.port: int | None = None
        self.server_info: types.Implementation | None = None
        self._host: asyncio.subprocess.Process | None = None
        self._server: asyncio.subprocess.Process | None = None
        self._session: ClientSession | None = None
        self._stack: AsyncExitStack | None = None
        self.calls = 0  # tool calls started: from the first one on, host failures are typed
        self._in_call = False  # a call hung, was cancelled or is running: the host may be stuck
        # Liveness (HostLiveness), when the session starts inside `watching`:
        self._liveness: HostLiveness | None = None
        self._pinger: asyncio.Task | None = None
        self._pings: dict[int, float] = {}  # ping number -> when it was sent (monotonic)
        self._ping_seq = 0
        self._alive_at = 0.0  # latest moment the host is known to have been scheduled
        self._cpu: tuple[int | None, float] | None = None  # last CPU sample, when taken
        self._first_call_at: float | None = None
        self._answered = 0  # the highest ping the host has answered
        self._answer_seen = asyncio.Event()

    async def __aenter__(self) -> BlenderMcpSession:
        await self.start()
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.close()

    def _sandbox_env(self) -> dict[str, str]:
        state = self.config.state_dir.rstrip("/")
        return {**TELEMETRY_OFF, "PYTHONUNBUFFERED": "1",
                "XDG_DATA_HOME": f"{state}/data", "XDG_CONFIG_HOME": f"{state}/config"}

    def _new_logs(self) -> tuple[_ProcessLog, _ProcessLog]:
        """The host's and the server's logs, in log_dir when there is one."""
        return (_ProcessLog("blender host", self.log_dir / "mcp-host.log" if self.log_dir else None,
                            consume=self._host_line),
                _ProcessLog("mcp server", self.log_dir / "mcp-server.log" if self.log_dir else None))

    def _planned_port(self) -> int | None:
        """The host's port when it is known before the host listens: the configured one, or
        OWN_LOOPBACK_PORT in an environment whose loopback is the session's alone."""
        if self.config.port:
            return self.config.port
        return OWN_LOOPBACK_PORT if getattr(self.environment, "private_loopback", False) else None

    async def _spawn_server(self, port: int) -> asyncio.subprocess.Process:
        server = await self.environment.spawn(
            [self.environment.python, "-m", "blender_mcp.server"],
            env={**self._sandbox_env(), "BLENDER_HOST": "127.0.0.1", "BLENDER_PORT": str(port)},
            cwd=self.config.workdir,
        )
        self.server_log.drain(server.stderr)
        return server

    async def spawn(self) -> None:
        """Spawn the host and, where its port is known ahead, the server; nothing is read from
        them yet. `start` does this itself; a pre-started sandbox (sandbox/prestart.py) does it
        ahead of the trial that will adopt them."""
        await self._spawn_host()
        # With the port known ahead, the server's start (~0.6 CPU-s of imports) overlaps the
        # host's (bpy and the scene): the stock server connects to the host at its first
        # tool call, not before (a connect at its own start that finds no host only warns).
        planned = self._planned_port()
        if planned is not None:
            self._server = await self._spawn_server(planned)

    @property
    def host_pid(self) -> int | None:
        return self._host.pid if self._host is not None else None

    def spawned_alive(self) -> bool:
        """Host and server (where spawned) are still running, and no tool call ever reached them."""
        return (self.calls == 0 and self._host is not None and self._host.returncode is None
                and (self._server is None or self._server.returncode is None))

    async def discard_spawned(self) -> None:
        """Stop spawned processes that were never adopted (an unclaimed pre-started sandbox)."""
        await self._stop_processes()

    def _adopt(self, spawned: BlenderMcpSession) -> None:
        """Take over the processes a pre-started sandbox spawned with this same config, and
        their logs; from here on they are this session's as if it had spawned them."""
        self._host, self._server = spawned._host, spawned._server
        spawned._host = spawned._server = None
        self.host_log, self.server_log = spawned.host_log, spawned.server_log
        self.host_log.write_to(self.log_dir / "mcp-host.log" if self.log_dir else None,
                               consume=self._host_line)
        self.server_log.write_to(self.log_dir / "mcp-server.log" if self.log_dir else None)
        self._watch_host()

    async def _start_processes(self) -> None:
        """Adopt the environment's pre-started host and server when it offers ones spawned with
        this config, else spawn them; then wait until the host is ready. A handed host that
        dies before it is ready is replaced here: the trial never pays for a pre-start."""
        take = getattr(self.environment, "take_prestarted", None)
        handed = await take(self.config) if take is not None else None
        if handed is not None:
            self._adopt(handed)
            try:
                await self._await_host()
                # Its readiness line may date from long before: a ping answered now proves it
                # still runs (a process that died since cannot answer).
                await self._answers_ping(min(self.config.startup_timeout_sec, HANDSHAKE_SEC))
                return
            except McpSessionError as exc:
                logger.warning("the pre-started Blender host failed before it was ready; "
                               "starting a fresh one: %s", str(exc).splitlines()[0])
                replaced = getattr(self.environment, "prestarted_replaced", None)
                if replaced is not None:
                    replaced()
                await self._stop_processes()
                self._host = self._server = None
                self.host_log, self.server_log = self._new_logs()
        await self.spawn()
        await self._await_host()

    async def _answers_ping(self, timeout: float) -> None:
        host = self._host
        assert host is not None  # adopted
        self._ping()
        wanted = self._ping_seq

        async def answered() -> None:
            while self._answered < wanted:
                self._answer_seen.clear()
                await self._answer_seen.wait()

        waiting, exited = asyncio.ensure_future(answered()), asyncio.ensure_future(host.wait())
        done, pending = await asyncio.wait({waiting, exited}, timeout=timeout,
                                           return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        if waiting not in done:
            raise self._failure("the Blender host did not answer a ping" if not exited.done()
                                else f"Blender host exited with code {host.returncode}")

    async def start(self) -> None:
        stack = AsyncExitStack()
        stack.push_async_callback(self._stop_processes)  # also on a failed or cancelled start
        try:
            await self._start_processes()
            planned = self._planned_port()
            if self._server is None:
                assert self.port is not None  # set by _await_host
                self._server = await self._spawn_server(self.port)
            elif self.port != planned:
                raise self._failure(f"Blender host listens on port {self.port}, not {planned}")
            read, write = await stack.enter_async_context(process_transport(self._server))
            # The default bounds what the MCP server answers itself (initialize, the tool list):
            # its start-up, which a loaded host can stretch well past a short tool timeout.
            # Every tool call passes the tool timeout (call_tool).
            session = await stack.enter_async_context(ClientSession(
                read, write, read_timeout_seconds=timedelta(seconds=self.config.startup_timeout_sec),
            ))
            self._session = session
            try:
                with anyio.fail_after(self.config.startup_timeout_sec):
                    init = await session.initialize()
            except (TimeoutError, McpError) as exc:
                raise self._failure(f"MCP initialize failed: {exc}") from exc
            self.server_info = init.serverInfo
        except BaseException:
            await stack.aclose()
            raise
        self._stack = stack

    async def _spawn_host(self) -> None:
        cfg = self.config
        argv = [self.environment.python, "-m", "blender_mcp_host", "--blend", cfg.blend,
                "--host", "127.0.0.1", "--port", str(self._planned_port() or 0),
                "--exit-on-stdin-eof", "--answer-pings"]
        self._host = await self.environment.spawn(argv, env=self._sandbox_env(), cwd=cfg.workdir)
        self._watch_host()
        self.host_log.drain(self._host.stderr)

    async def _await_host(self) -> None:
        cfg = self.config
        assert self._host is not None  # spawned by _spawn_host
        try:
            self.port, pending = await asyncio.wait_for(self._await_ready(), cfg.startup_timeout_sec)
        except asyncio.TimeoutError:
            raise self._failure(f"Blender host not ready after {cfg.startup_timeout_sec:.0f}s") from None
        self.host_log.drain(self._host.stdout, pending)

    # -- liveness (HostLiveness) -------------------------------------------------------------

    def _watch_host(self) -> None:
        liveness = _LIVENESS.get()
        if liveness is None:
            return  # nobody asks: no pings
        self._liveness = liveness
        self._alive_at = time.monotonic()  # just spawned
        liveness.add(self)
        self._pinger = asyncio.create_task(self._ping_loop(), name="blender-host-liveness")

    async def _ping_loop(self) -> None:
        while self._host is not None and self._host.returncode is None:
            self._sample_cpu()
            self._ping()
            await asyncio.sleep(PING_INTERVAL_SEC)

    def _ping(self) -> None:
        stdin = self._host.stdin if self._host is not None else None
        if stdin is None or stdin.is_closing() or stdin.transport.get_write_buffer_size() > 4096:
            return  # closed, or a host that stopped reading: nothing to add
        self._ping_seq += 1
        self._pings[self._ping_seq] = time.monotonic()
        with contextlib.suppress(Exception):  # a pipe that just broke: the host is going
            stdin.write(b"%d\n" % self._ping_seq)

    def _sample_cpu(self) -> None:
        now = time.monotonic()
        assert self._host is not None  # sampled only by the ping loop, while the host runs
        ticks = cpu_ticks(launch_pids(self._host))
        if ticks is not None and self._cpu is not None and self._cpu[0] is not None \
                and ticks > self._cpu[0]:
            self._alive_at = max(self._alive_at, self._cpu[1])  # it ran after the last sample
        self._cpu = (ticks, now)
        self._pings = {k: v for k, v in self._pings.items() if v > self._alive_at}

    def _host_line(self, line: str) -> str | None:
        """A line of the host's output: an answered ping is taken out (and dates the host's
        last sign of life: when that ping was sent); what is left is logged."""
        if ALIVE_MARKER not in line:
            return line
        for number in _ALIVE.findall(line):
            if number:
                self._answered = max(self._answered, int(number))
                self._answer_seen.set()
            if number and (sent := self._pings.get(int(number))) is not None:
                self._alive_at = max(self._alive_at, sent)
                self._pings = {k: v for k, v in self._pings.items() if k > int(number)}
        rest = _ALIVE.sub("", line)
        return rest if rest.strip() else None

    def host_silent_sec(self, now: float) -> float | None:
        """Seconds the host has shown no sign of life, while that is infrastructure's: before
        the first tool call, or when the host was already silent as it began. None: not
        judged (not watched, no host, host exited, or the first call found it alive).

        Silence spans from its last sign of life to the newest ping it has left unanswered
        for PING_GRACE_SEC: time this worker was not looking (its event loop busy elsewhere)
        sent no ping and does not count against the host."""
        if self._liveness is None or self._host is None or self._host.returncode is not None:
            return None
        if self._first_call_at is not None and self._alive_at >= self._first_call_at:
            return None
        due = [sent for sent in self._pings.values()
               if self._alive_at < sent <= now - PING_GRACE_SEC]
        return max(due) - self._alive_at if due else 0.0

    def kill_host(self) -> list[int]:
        """SIGKILL the host's processes (its bwrap and what runs in it); returns their pids."""
        if self._host is None or self._host.returncode is not None:
            return []
        pids = launch_pids(self._host)
        for pid in pids:  # bwrap last
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        return pids

    async def _unwatch_host(self) -> None:
        if self._liveness is not None:
            self._liveness.discard(self)
            self._liveness = None
        if self._pinger is not None:
            self._pinger.cancel()
            await asyncio.gather(self._pinger, return_exceptions=True)
            self._pinger = None

    async def _await_ready(self) -> tuple[int, bytes]:
        """Read host stdout up to the readiness line; returns its port and any bytes after it."""
        buffer = b""
        # Spawned by _spawn_host, with stdout piped (SpawningEnvironment).
        assert self._host is not None and self._host.stdout is not None
        while chunk := await self._host.stdout.read(_CHUNK):
            *lines, buffer = (buffer + chunk).split(b"\n")
            for i, raw in enumerate(lines):
                line = raw.decode("utf-8", "replace")
                self.host_log.add(line)
                if READY_MARKER in line:
                    rest = b"\n".join(lines[i + 1:] + [buffer])
                    return ready_port(line), rest
        await self._host.wait()
        await self.host_log.flush()  # its stderr says why
        raise self._failure(f"Blender host exited with code {self._host.returncode} before it was ready")

    def _failure(self, what: str) -> McpSessionError:
        return McpSessionError(
            f"{what}\n--- blender host (tail) ---\n{self.host_log.text()}"
            f"\n--- mcp server (tail) ---\n{self.server_log.text()}"
        )

    def _check_alive(self) -> None:
        host = self._host
        if self.calls and host is not None and host.returncode is not None:
            raise BlenderHostDied(f"Blender host exited with code {host.returncode} during or "
                                  f"after tool call {self.calls}",
                                  self._evidence(exit_code=host.returncode))
        for name, proc in (("Blender host", self._host), ("MCP server", self._server)):
            if proc is not None and proc.returncode is not None:
                raise self._failure(f"{name} exited with code {proc.returncode}")

    def _evidence(self, **extra: Any) -> dict[str, Any]:
        return {"tool_call": self.calls, **extra, "log_tail": "\n".join(list(self.host_log.tail)[-20:])}

    def _hung(self, why: str) -> BlenderHostHung:
        self._in_call = True  # still stuck in it, whoever gave up waiting
        return BlenderHostHung(f"Blender host did not answer tool call {self.calls}: {why}",
                               self._evidence(timeout_sec=self.config.tool_timeout_sec))

    async def _await_host_exit(self) -> None:
        assert self._host is not None  # a tool call was made: the host was started
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._host.wait()), HOST_EXIT_GRACE_SEC)
        await self.host_log.flush()

    @property
    def session(self) -> ClientSession:
        if self._session is None:
            raise McpSessionError("MCP session is not started")
        return self._session

    async def list_tools(self) -> list[types.Tool]:
        tools: list[types.Tool] = []
        cursor = None
        while True:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await self.session.list_tools(params=params)
            tools.extend(page.tools)
            cursor = page.nextCursor
            if not cursor:
                return tools

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> types.CallToolResult:
        """Call one MCP tool.  Tool-level failures come back as results (``isError`` or an error
        text); a host that dies raises BlenderHostDied, one that does not answer BlenderHostHung,
        a dead server McpSessionError; other protocol errors raise McpError."""
        self._check_alive()
        if self._first_call_at is None:
            # From here on a host that stops answering is this call's (the solver's or the
            # author's), unless it was already silent: the ping sent now is answered at once by
            # a live host, before the call's code can run.
            self._first_call_at = time.monotonic()
            if self._liveness is not None:
                self._ping()
        self.calls += 1
        self._in_call = True  # left set if the call hangs or is cancelled (agent timeout)
        try:
            result = await self.session.call_tool(
                name, arguments or {},
                read_timeout_seconds=timedelta(seconds=self.config.tool_timeout_sec))
            self._in_call = False
        except McpError as exc:
            if exc.error.code == httpx.codes.REQUEST_TIMEOUT:
                raise self._hung(f"no answer within {self.config.tool_timeout_sec:g}s") from None
            await asyncio.sleep(0.2)  # let a dying process's exit be observed before deciding
            if any(p is not None and p.returncode is not None for p in (self._host, self._server)):
                await asyncio.gather(self.host_log.flush(), self.server_log.flush())
                self._check_alive()
            raise
        text = tool_result_text(result)
        if text.startswith("Error") and HOST_LOST.search(text):
            await self._await_host_exit()
        elif text.startswith("Error") and HOST_TIMEOUT in text:
            raise self._hung("the MCP server gave up waiting for it")
        self._check_alive()
        return result

    async def save(self, path: str) -> str:
        """Save the open scene to ``path`` (inside the sandbox; relative to the workdir) through
        the ``execute_blender_code`` tool; returns the absolute path written."""
        result = await self.call_tool("execute_blender_code", {"code": save_code(path)})
        text = tool_result_text(result)
        for line in text.splitlines():
            if SAVE_MARKER in line:
                return line.split(SAVE_MARKER, 1)[1].split()[0]
        raise DeliverySaveFailed(f"saving the scene to {path} failed: {text[-500:]}",
                                 self._evidence(output=text[-2000:]))

    async def _stop_processes(self) -> None:
        # The server first: it disconnects from the host as it shuts down.  A host stuck in a
        # call first, killed at once: the stock server blocks on it and would not see its
        # stdin close.  (In the sandbox the kill reaches only bwrap; the host exits on its own
        # STOP_GRACE_SEC after its stdin closed.)
        await self._unwatch_host()
        stuck = self._in_call
        for proc in (self._host, self._server) if stuck else (self._server, self._host):
            if proc is not None:
                await _stop_process(proc, self.config.shutdown_timeout_sec,
                                    kill=stuck and proc is self._host)
        await self.server_log.close()
        await self.host_log.close()

    async def close(self) -> None:
        stack, self._stack, self._session = self._stack, None, None
        if stack is not None:
            started = time.monotonic()
            await stack.aclose()
            logger.debug("MCP session closed in %.1fs", time.monotonic() - started)
