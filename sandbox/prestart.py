"""Pre-started solver sandboxes: a never-used Blender host and MCP server, waiting for a trial.

An MCP trial spends its first ~0.5 s (several seconds on a loaded machine) starting the sandboxed
Blender host (`import bpy`, the start scene) and the stock MCP server. `PrestartedHosts` takes
that off the trial's critical path. When a trial whose caller said another trial of the task
follows (`TrialRequest.prestart_next`: an EvaluationCampaign marks it) is done solving (its
verifier starts, or its solver sandbox closes), the pool opens the next one: a fresh slot, the task's files, and the host and server spawned
exactly as `BlenderMcpSession` spawns them (`BlenderMcpSession.spawn`). The next trial of the
same task takes it whole at `ArkevoSandboxEnvironment.start`, and its session adopts the two
processes instead of spawning its own. Without that word nothing is pre-started: a sandbox that
waits for a trial that never comes costs a Blender start for nothing.

Isolation (docs/sandbox.md "Pre-started hosts") holds because of how entries move:
- They go one way. An entry leaves the pool when a trial takes it, before anything else can
  see it, and nothing is ever put back. A trial's own sandbox closes at its end, as always.
- No entry has run anything of anyone's. It holds a host that has opened the start scene and
  answered nothing, in a sandbox no exec has touched.
- A host or server that died while waiting is replaced. The trial gets a fresh sandbox and
  runs once; the entry is counted in `replaced`.
- Entries that no trial claims close after `idle_sec` and free their slots.
- A pre-start never waits for a slot (`slot_wait_sec=0`): when the slots are busy it is
  skipped.

The pool lives in one worker process. `offering(pool, refill=...)` makes it visible to the
environments and sessions created inside a trial (a context variable, like `HostLiveness`), so
`harbor run` and anything else outside it never see it.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
import weakref
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from sandbox.mcp_session import BlenderMcpSession, McpSessionConfig

logger = logging.getLogger(__name__)

DEFAULT_IDLE_SEC = 30.0


@dataclass
class Prestarted:
    """One waiting solver sandbox: its opened environment and the session whose host and server
    are spawned, never called."""

    key: str
    environment: Any  # ArkevoSandboxEnvironment (sandbox/environment.py imports this module)
    session: BlenderMcpSession
    created: float = field(default_factory=time.monotonic)

    @property
    def host_pid(self) -> int | None:
        return self.session.host_pid

    def alive(self) -> bool:
        return self.session.spawned_alive()

    async def close(self) -> None:
        with contextlib.suppress(Exception):  # a dead host or server: its sandbox still goes
            await self.session.discard_spawned()
        await _close_environment(self.environment)


async def _close_environment(environment: Any) -> None:
    """Close a pre-started sandbox (its slot wiped and freed) and remove its own folder."""
    try:
        with contextlib.suppress(Exception):
            await environment.stop(delete=True)
    finally:
        environment.discard_record()


# Makes the next pre-started sandbox of a task: an opened environment twin of the one that just
# closed (ArkevoSandboxEnvironment.twin).
TwinFactory = Callable[[], Awaitable[Any]]


class PrestartedHosts:
    """A worker's waiting solver sandboxes, at most `capacity` at a time (one per gpu slot)."""

    def __init__(self, config: McpSessionConfig | None = None, *, capacity: int = 1,
                 idle_sec: float = DEFAULT_IDLE_SEC) -> None:
        self.config = config or McpSessionConfig()
        self.capacity = capacity
        self.idle_sec = idle_sec
        self._waiting: dict[str, list[Prestarted]] = {}
        self._starting: dict[asyncio.Task, str] = {}  # pre-starts under way, by key
        self._expiry: dict[int, asyncio.TimerHandle] = {}
        self.counts: Counter[str] = Counter()  # started, handed, replaced, expired, skipped
        self.handed_pids: list[int] = []  # every host handed to a trial, in order
        _POOLS.add(self)

    # -- what a trial's environment asks ------------------------------------------------------

    async def take(self, key: str) -> Prestarted | None:
        """A live, never-used entry for `key`, out of the pool for good; None if there is none.
        Dead entries met on the way are closed and counted as `replaced`."""
        starting = [task for task, task_key in self._starting.items() if task_key == key]
        if not self._waiting.get(key) and starting:
            # Already under way: most of its start is paid, a fresh one would start from zero.
            await asyncio.wait(starting)
        entries = self._waiting.get(key, [])
        while entries:
            entry = entries.pop(0)
            self._cancel_expiry(entry)
            if entry.alive():
                self.counts["handed"] += 1
                if entry.host_pid is not None:
                    self.handed_pids.append(entry.host_pid)
                logger.info("pre-started sandbox %s handed to a trial (waited %.1fs)",
                            entry.environment.session_id, time.monotonic() - entry.created)
                return entry
            self.counts["replaced"] += 1
            logger.warning("pre-started sandbox %s: its host or server died while waiting; "
                           "the trial starts its own", entry.environment.session_id)
            await entry.close()
        return None

    def note_replaced(self) -> None:
        """A handed host that died before it was ready (the session started its own)."""
        self.counts["replaced"] += 1

    def refill(self, key: str, twin: TwinFactory) -> None:
        """After a solver sandbox of `key` closed, with another trial of it to come: pre-start
        the next if a place is free. Runs in the background, in an empty context (no pool, no
        liveness)."""
        if sum(map(len, self._waiting.values())) + len(self._starting) >= self.capacity:
            return
        task = asyncio.get_running_loop().create_task(self._prestart(key, twin),
                                                      context=contextvars.Context())
        self._starting[task] = key
        task.add_done_callback(lambda done: self._starting.pop(done, None))

    async def _prestart(self, key: str, twin: TwinFactory) -> None:
        environment = None
        try:
            environment = await twin()
            session = BlenderMcpSession(environment, self.config)
            await session.spawn()
            if (prepare := getattr(environment, "prepare_held_launches", None)) is not None:
                await prepare()  # the trial's first exec need not launch the holder
        except BaseException as exc:
            if environment is not None:
                await _close_environment(environment)
            if not isinstance(exc, Exception):  # cancelled: the pool is closing
                raise
            self.counts["skipped"] += 1  # the next trial simply starts its own
            logger.info("no pre-started sandbox for the next trial: %s: %s", type(exc).__name__, exc)
            return
        entry = Prestarted(key, environment, session)
        self._waiting.setdefault(key, []).append(entry)
        self.counts["started"] += 1
        self._expiry[id(entry)] = asyncio.get_running_loop().call_later(
            self.idle_sec, lambda: asyncio.ensure_future(self._expire(entry)))

    async def _expire(self, entry: Prestarted) -> None:
        entries = self._waiting.get(entry.key, [])
        if entry in entries:
            entries.remove(entry)
            self._expiry.pop(id(entry), None)
            await entry.close()
            self.counts["expired"] += 1  # once its slot is free and its folder gone

    def _cancel_expiry(self, entry: Prestarted) -> None:
        handle = self._expiry.pop(id(entry), None)
        if handle is not None:
            handle.cancel()

    def waiting(self) -> list[Prestarted]:
        return [entry for entries in self._waiting.values() for entry in entries]

    async def settled(self) -> None:
        """Wait for the pre-starts under way (tests, shutdown)."""
        if self._starting:
            await asyncio.gather(*list(self._starting), return_exceptions=True)

    async def aclose(self) -> None:
        """Stop the pre-starts under way and close every waiting entry."""
        for task in list(self._starting):
            task.cancel()
        await self.settled()
        for entry in self.waiting():
            self._cancel_expiry(entry)
            await entry.close()
        self._waiting.clear()


_POOLS: weakref.WeakSet[PrestartedHosts] = weakref.WeakSet()


@dataclass(frozen=True)
class Offer:
    pool: PrestartedHosts
    refill: bool  # the trial's caller starts another trial of the task after this one


_OFFERED: contextvars.ContextVar[Offer | None] = contextvars.ContextVar(
    "arkevo_prestarted_hosts", default=None)


@contextlib.contextmanager
def offering(pool: PrestartedHosts | None, *, refill: bool = False):
    """Solver environments started in tasks created inside this block take a waiting sandbox
    from `pool`, and with `refill` have the next one started as they close."""
    token = _OFFERED.set(Offer(pool, refill) if pool is not None else None)
    try:
        yield pool
    finally:
        _OFFERED.reset(token)


def offered() -> Offer | None:
    return _OFFERED.get()


async def close_all() -> None:
    """Close every pool of this process (a worker shutting down)."""
    for pool in list(_POOLS):
        await pool.aclose()
