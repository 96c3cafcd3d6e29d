"""The token bucket behind every model request budget (modelapi/token_bucket.py; fake clock, no
sleeping). Its arithmetic, `take`, is also what the shared ModelRateBudget workflow runs."""

from __future__ import annotations

import asyncio
import threading

import pytest

from modelapi.token_bucket import DEFAULT_RPM, TokenBucket, limiter_from_env, rate_from_env, take


class FakeClock:
    def __init__(self):
        self.now = 1000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds

    def blocking_sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def bucket(rpm=4.0, burst=1.0) -> tuple[TokenBucket, FakeClock]:
    clock = FakeClock()
    return TokenBucket(rpm, burst, clock=clock, sleep=clock.sleep, blocking_sleep=clock.blocking_sleep), clock


def test_default_is_four_per_minute_one_at_a_time():
    b, _ = bucket()
    assert b.rate_per_minute == DEFAULT_RPM == 4.0
    # back-to-back reservations are spaced 15 s apart, in call order
    assert [b.reserve() for _ in range(4)] == [0.0, 15.0, 30.0, 45.0]
    assert b.granted == 4 and b.delayed == 3 and b.total_wait == 90.0


def test_burst_allows_that_many_at_once_then_the_rate():
    b, _ = bucket(rpm=4, burst=3)
    assert [b.reserve() for _ in range(5)] == [0.0, 0.0, 0.0, 15.0, 30.0]


def test_idle_time_refills_only_up_to_the_burst():
    b, clock = bucket(rpm=4, burst=2)
    assert [b.reserve() for _ in range(2)] == [0.0, 0.0]
    clock.advance(600)  # ten idle minutes earn 40 tokens, but the bucket holds 2
    assert [b.reserve() for _ in range(3)] == [0.0, 0.0, 15.0]


def test_no_window_of_a_minute_sees_more_than_burst_plus_rate():
    b, clock = bucket(rpm=4, burst=1)
    starts = []
    for _ in range(12):
        clock.now += b.reserve()  # the caller waits, then sends
        starts.append(clock.now)
    for t0 in starts:
        assert sum(t0 <= t <= t0 + 60 for t in starts) <= 1 + 4


def test_async_acquire_sleeps_the_reserved_delay():
    clock = FakeClock()
    slept = []

    async def record_sleep(seconds):  # the three reserve at the same instant
        slept.append(seconds)

    b = TokenBucket(60, 1, clock=clock, sleep=record_sleep)

    async def three():
        return await asyncio.gather(b.acquire(), b.acquire(), b.acquire())

    waits = asyncio.run(three())
    assert sorted(waits) == [0.0, 1.0, 2.0]
    assert sorted(slept) == [1.0, 2.0]


def test_blocking_acquire_from_threads_grants_each_slot_once():
    b, clock = bucket(rpm=6000, burst=1)  # 0.01 s apart
    delays, lock = [], threading.Lock()

    def worker():
        for _ in range(25):
            d = b.reserve()
            with lock:
                delays.append(d)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # 100 reservations at a frozen clock: each slot 0.01 s after the previous, none shared
    assert sorted(round(d, 6) for d in delays) == [round(i * 0.01, 6) for i in range(100)]
    assert b.acquire_blocking() == pytest.approx(1.0)


def test_configuration_from_the_environment_and_validation():
    b = limiter_from_env({"ARKEVO_LLM_RPM": "12", "ARKEVO_LLM_BURST": "3"})
    assert b.rate_per_minute == 12 and b.burst == 3
    assert limiter_from_env({}).rate_per_minute == 4.0
    for bad in ({"ARKEVO_LLM_RPM": "fast"}, {"ARKEVO_LLM_RPM": "0"}, {"ARKEVO_LLM_BURST": "0.5"}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            rate_from_env(bad)
    with pytest.raises(ValueError):
        TokenBucket(0)
    with pytest.raises(ValueError):
        TokenBucket(4, burst=0.5)
    assert set(b.stats()) == {"rate_per_minute", "burst", "granted", "delayed", "total_wait_s"}


def test_take_is_the_bucket_arithmetic():
    # full bucket of 2 at 60/min: two free, then one second apart; a long pause refills to 2 only
    tokens, waits = 2.0, []
    for elapsed in (0.0, 0.0, 0.0, 0.5):
        tokens, wait = take(tokens, elapsed, 60.0, 2.0)
        waits.append(round(wait, 6))
    assert waits == [0.0, 0.0, 1.0, 1.5]
    assert take(tokens, 3600.0, 60.0, 2.0) == (1.0, 0.0)
