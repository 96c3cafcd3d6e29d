"""The one heartbeating helper (observability/heartbeats.py): inside an activity it beats while
the work runs and stops when it ends; outside one it just runs the work."""

from __future__ import annotations

import asyncio
import threading

import pytest
from temporalio.testing import ActivityEnvironment

from observability.heartbeats import heartbeating, in_thread


async def test_in_thread_beats_until_the_blocking_work_returns():
    env = ActivityEnvironment()
    beats: list[tuple] = []
    two_beats = threading.Event()

    def on_heartbeat(*details):
        beats.append(details)
        if len(beats) >= 2:
            two_beats.set()

    env.on_heartbeat = on_heartbeat

    def blocking() -> str:  # returns only once the activity has heartbeaten twice meanwhile
        assert two_beats.wait(30), "no heartbeats while the work ran"
        return "done"

    async def act() -> str:
        return await in_thread(blocking, what="rendering", every=0.01)

    assert await env.run(act) == "done"
    assert beats[0] == ("rendering",) and len(beats) >= 2
    count = len(beats)
    await env.run(act)  # a second run: the first run's beater is gone
    assert all(b == ("rendering",) for b in beats[count:])


async def test_the_body_error_propagates_and_the_beater_stops():
    env = ActivityEnvironment()
    beats: list[tuple] = []
    first = asyncio.Event()

    def on_heartbeat(*details):
        beats.append(details)
        first.set()

    env.on_heartbeat = on_heartbeat

    async def act() -> None:
        async with heartbeating("judging", every=0.01):
            await first.wait()
            raise ValueError("the model refused")

    with pytest.raises(ValueError, match="refused"):
        await env.run(act)
    after = len(beats)
    await asyncio.sleep(0.1)  # ten intervals: a beater still alive would have beaten
    assert beats[0] == ("judging",) and len(beats) == after


async def test_outside_an_activity_it_only_runs_the_work():
    assert await in_thread(lambda a, b: a + b, 2, 3, what="adding") == 5
