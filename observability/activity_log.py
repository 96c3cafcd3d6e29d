"""Every activity's start and end in the worker's log, at INFO, with the seed and the stage it
works for: a long stage is not silent (docs/operations.md, "Logs").

`seed` is the activity input's `seed_id` or `task_id` (most stage payloads carry one); `stage`
is the `NN-name` part of the workflow id (TaskProduction's children are `<id>.<stage>`, their
trials `<id>.<stage>/...`). Either is left out when the activity does not work for one.
"""

from __future__ import annotations

import re
import time
from typing import Any

from temporalio import activity
from temporalio.worker import ActivityInboundInterceptor, ExecuteActivityInput, Interceptor

_STAGE = re.compile(r"(?:^|[./])(\d\d-[a-z][a-z-]*)")


def stage_of(workflow_id: str | None) -> str | None:
    """The last `NN-name` stage in a workflow id: `p.05-review` -> `05-review`."""
    found = _STAGE.findall(workflow_id or "")
    return found[-1] if found else None


def seed_of(args: Any) -> str | None:
    """The seed or task an activity's input names, looking one level into it (`frozen`, ...)."""
    for arg in args or ():
        for holder in (arg, *(getattr(arg, name, None) for name in ("frozen", "identity", "admission"))):
            for name in ("seed_id", "task_id"):
                value = getattr(holder, name, None)
                if isinstance(value, str) and value:
                    return value
    return None


class ActivityLog(Interceptor):
    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _LoggedActivity(next)


class _LoggedActivity(ActivityInboundInterceptor):
    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        info = activity.info()
        where = {k: v for k, v in (("seed", seed_of(input.args)), ("stage", stage_of(info.workflow_id))) if v}
        label = " ".join(f"{k} {v}" for k, v in where.items()) or info.workflow_id
        activity.logger.info("%s started (%s, attempt %d)", info.activity_type, label, info.attempt, extra=where)
        started = time.monotonic()
        try:
            result = await self.next.execute_activity(input)
        except BaseException as exc:
            activity.logger.info("%s ended with %s after %.1f s (%s)", info.activity_type, type(exc).__name__,
                                 time.monotonic() - started, label, extra=where)
            raise
        activity.logger.info("%s done after %.1f s (%s)", info.activity_type, time.monotonic() - started, label,
                             extra=where)
        return result
