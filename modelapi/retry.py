"""Who retries a model request: exactly one owner per call (docs/models.md).

* **Temporal**, wherever a call's activity can simply run again: the VL judge, the reviewer, the
  deriver. The client sends once; a 429/5xx/transport failure becomes a retryable
  `ApplicationError` whose `next_retry_delay` is the server's Retry-After (`activity_error`), and
  the activity's retry policy (workflows/activity_options.py) is the only loop. The judge keeps
  each answered question in the store, so a retry asks only what is still unanswered.
* **The session**, where the call is one turn of a conversation with a live Blender scene that
  a re-run could not resume: the LLM solver agent's trial and the author's tool loop.
  `SessionRetry` retries that one call in place (Retry-After honoured, else backoff with jitter)
  and, when its attempts run out, raises `ModelEndpointUnavailable`; the activity then fails as
  infrastructure (the author's round with the last Retry-After as its `next_retry_delay`), and
  Temporal's retry starts a new session, never the same call again.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, TypeVar

from temporalio.exceptions import ApplicationError

from modelapi.client import ModelEndpointUnavailable

T = TypeVar("T")
UNAVAILABLE = "ModelEndpointUnavailable"


def activity_error(exc: ModelEndpointUnavailable, what: str = "") -> ApplicationError:
    """A retryable activity failure that asks Temporal to wait what the server asked."""
    delay = timedelta(seconds=exc.retry_after) if exc.retry_after else None
    return ApplicationError(f"{what}{': ' if what else ''}{exc}", {"retry_after": exc.retry_after,
                                                                   "status": exc.status},
                            type=UNAVAILABLE, next_retry_delay=delay)


@dataclass
class SessionRetry:
    max_attempts: int = 6
    backoff_initial_sec: float = 1.0
    backoff_max_sec: float = 60.0
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    retries: list[dict[str, Any]] = field(default_factory=list)  # for the trajectory / record

    def delay(self, attempt: int, retry_after: float | None) -> float:
        backoff = min(self.backoff_max_sec, self.backoff_initial_sec * 2 ** (attempt - 1))
        delay = backoff / 2 + random.uniform(0, backoff / 2)  # jitter: many sessions spread out
        return delay if retry_after is None else max(delay, retry_after)

    async def call(self, send: Callable[[], Awaitable[T]], *, label: str = "") -> T:
        for attempt in range(1, self.max_attempts + 1):
            try:
                return await send()
            except ModelEndpointUnavailable as exc:
                if attempt == self.max_attempts:
                    raise ModelEndpointUnavailable(
                        f"still failing after {self.max_attempts} attempts; last: {exc}",
                        exc.retry_after, exc.status) from None
                wait = self.delay(attempt, exc.retry_after)
                self.retries.append({"call": label, "attempt": attempt, "reason": str(exc)[:300],
                                     "retry_after": exc.retry_after, "delay_sec": round(wait, 3)})
                await self.sleep(wait)
        raise AssertionError("unreachable")
