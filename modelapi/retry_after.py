"""HTTP ``Retry-After`` parsing for `modelapi.client` (a 429 or 503 says how long to wait).
Standard library only."""

from __future__ import annotations

import email.utils
import math
from datetime import datetime, timezone


def parse_retry_after(value: str | None) -> float | None:
    """Retry-After as seconds to wait (delta-seconds or an HTTP date; a date in the past is 0);
    None if absent or unreadable. Callers cap it."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:  # "-0000": HTTP dates are GMT
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())
