"""A token bucket for model calls on the ``arkevo-llm`` queue (default 4 requests / minute).

One bucket per worker process, shared by every activity that calls the model (inject it;
``shared_limiter()`` gives the process-wide one).  Callers *reserve* a slot: the bucket refills
at ``rate_per_minute / 60`` tokens a second up to ``burst``; a reservation takes one token,
going into debt if none is left, and returns how long the caller must wait before sending.
Reservations are granted in call order, work from threads (``acquire_blocking``) and from
asyncio (``acquire``) alike, and a cancelled waiter never gives its slot back -- the bucket
errs on the side of sending fewer requests, never more.  With ``burst = 1`` at most
``1 + rate_per_minute * T / 60`` requests start in any window of ``T`` seconds.

Configure with ``ARKEVO_LLM_RPM`` (default 4) and ``ARKEVO_LLM_BURST`` (default 1).  The bucket
limits one process; several llm workers sharing one key must split the rate between them.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Awaitable, Callable

DEFAULT_RPM = 4.0
DEFAULT_BURST = 1.0


class TokenBucket:
    def __init__(self, rate_per_minute: float = DEFAULT_RPM, burst: float = DEFAULT_BURST, *,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                 blocking_sleep: Callable[[float], None] = time.sleep):
        if rate_per_minute <= 0:
            raise ValueError("rate_per_minute must be positive")
        if burst < 1:
            raise ValueError("burst must be at least 1")
        self.rate_per_minute = float(rate_per_minute)
        self.rate = float(rate_per_minute) / 60.0  # tokens per second
        self.burst = float(burst)
        self._clock = clock
        self._sleep = sleep
        self._blocking_sleep = blocking_sleep
        self._lock = threading.Lock()
        self._tokens = self.burst
        self._last = clock()
        self.granted = 0
        self.delayed = 0
        self.total_wait = 0.0

    def reserve(self) -> float:
        """Take one slot; returns the seconds to wait before using it (0 when free now)."""
        with self._lock:
            now = self._clock()
            self._tokens = min(self.burst, self._tokens + max(0.0, now - self._last) * self.rate)
            self._last = now
            self._tokens -= 1.0
            delay = 0.0 if self._tokens >= 0 else -self._tokens / self.rate
            self.granted += 1
            if delay > 0:
                self.delayed += 1
                self.total_wait += delay
            return delay

    async def acquire(self) -> float:
        delay = self.reserve()
        if delay > 0:
            await self._sleep(delay)
        return delay

    def acquire_blocking(self) -> float:
        delay = self.reserve()
        if delay > 0:
            self._blocking_sleep(delay)
        return delay

    def stats(self) -> dict:
        return {"rate_per_minute": self.rate_per_minute, "burst": self.burst, "granted": self.granted,
                "delayed": self.delayed, "total_wait_s": round(self.total_wait, 3)}


def limiter_from_env(env: dict | None = None) -> TokenBucket:
    env = os.environ if env is None else env
    return TokenBucket(float(env.get("ARKEVO_LLM_RPM", DEFAULT_RPM)), float(env.get("ARKEVO_LLM_BURST", DEFAULT_BURST)))


_SHARED: TokenBucket | None = None
_SHARED_LOCK = threading.Lock()


def shared_limiter() -> TokenBucket:
    """The process-wide bucket (configured from the environment on first use)."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = limiter_from_env()
        return _SHARED
