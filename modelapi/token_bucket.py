"""A token bucket for model requests (default 4 requests / minute).

`take` is the arithmetic, shared with the llm workers' common budget (the `ModelRateBudget`
workflow, which keeps the same state in Temporal so that every worker process draws on it;
`modelapi.rate_budget`).  `TokenBucket` is the same bucket inside one process, for a model
judge run outside Temporal (`verifiers.score_delivery`) and for tests.  Callers *reserve* a slot: the bucket refills
at ``rate_per_minute / 60`` tokens a second up to ``burst``; a reservation takes one token,
going into debt if none is left, and returns how long the caller must wait before sending.
Reservations are granted in call order, work from threads (``acquire_blocking``) and from
asyncio (``acquire``) alike, and a cancelled waiter never gives its slot back -- the bucket
errs on the side of sending fewer requests, never more.  With ``burst = 1`` at most
``1 + rate_per_minute * T / 60`` requests start in any window of ``T`` seconds.

Configure with ``ARKEVO_LLM_RPM`` (default 4) and ``ARKEVO_LLM_BURST`` (default 1).
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Awaitable, Callable

DEFAULT_RPM = 4.0
DEFAULT_BURST = 1.0


def take(tokens: float, elapsed: float, rate_per_minute: float, burst: float) -> tuple[float, float]:
    """One reservation: (tokens left, seconds to wait) from the tokens left at the last one and
    the seconds since. Tokens refill at rate/60 a second up to `burst`; a reservation takes one,
    going into debt when none is left, and the debt is the wait."""
    rate = rate_per_minute / 60.0
    tokens = min(burst, tokens + max(0.0, elapsed) * rate) - 1.0
    return tokens, (0.0 if tokens >= 0 else -tokens / rate)


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
            self._tokens, delay = take(self._tokens, now - self._last, self.rate_per_minute, self.burst)
            self._last = now
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


class RateConfigError(ValueError):
    """ARKEVO_LLM_RPM or ARKEVO_LLM_BURST is not a usable number (the message names it)."""


def _number(env, name: str, default: float, least: float) -> float:
    raw = env.get(name, "").strip()
    try:
        value = float(raw) if raw else default
    except ValueError:
        raise RateConfigError(f"{name}={raw!r}: expected a number") from None
    if not value >= least or value <= 0:
        raise RateConfigError(f"{name}={raw!r}: expected a number of at least {least:g} above 0")
    return value


def rate_from_env(env=None) -> tuple[float, float]:
    """(requests per minute, burst) from ARKEVO_LLM_RPM and ARKEVO_LLM_BURST."""
    env = os.environ if env is None else env
    return (_number(env, "ARKEVO_LLM_RPM", DEFAULT_RPM, 0.0),
            _number(env, "ARKEVO_LLM_BURST", DEFAULT_BURST, 1.0))


def limiter_from_env(env=None) -> TokenBucket:
    return TokenBucket(*rate_from_env(env))
