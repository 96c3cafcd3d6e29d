"""Heartbeating while an activity waits: one helper for every activity that runs Blender, a
sandbox or a model call off the event loop.

    async with heartbeating("judging"):
        result = await client.judge(...)

    rows = await in_thread(self._run, blend, what="mutation testing")

Outside an activity (a CLI, a test calling the method) both just run the body. The two waits
that decide *whether* to heartbeat -- a sandboxed process's deadline
(`sandbox.script_run.wait_heartbeating`) and a trial whose Blender host went silent
(`activities.trial_backends`) -- keep their own loops, on this interval.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import TypeVar

from temporalio import activity

# The shortest heartbeat timeout is the gpu pool's 20 s (workflows/activity_options.py); a beat
# every 5 s leaves room for a loaded host.
HEARTBEAT_SECONDS = 5.0

T = TypeVar("T")


@contextlib.asynccontextmanager
async def heartbeating(what: str, every: float = HEARTBEAT_SECONDS) -> AsyncIterator[None]:
    """Heartbeat `what` at once and every `every` seconds while the body runs."""
    async def beat() -> None:
        while True:
            activity.heartbeat(what)
            await asyncio.sleep(every)

    task = asyncio.create_task(beat()) if activity.in_activity() else None
    try:
        yield
    finally:
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def in_thread(fn: Callable[..., T], *args, what: str, every: float = HEARTBEAT_SECONDS) -> T:
    """`fn(*args)` in a worker thread (Blender blocks), heartbeating `what` until it returns."""
    async with heartbeating(what, every):
        return await asyncio.to_thread(fn, *args)
