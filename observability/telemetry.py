"""What a worker tells its operators: JSON log lines and Prometheus metrics
(docs/operations.md, "Logs" and "Metrics").

Logs. `setup_logging()` puts one handler on the root logger: `ARKEVO_LOG_FORMAT=json` (the
default of `python -m workers`) writes one JSON object per line -- `ts` (ISO-8601 UTC), `level`,
`logger`, `message`, `pool`, inside a workflow or an activity the ids Temporal's loggers attach
(`workflow_id`, `run_id`, `activity_type`, `attempt`, `task_queue`...), `exc` for an exception,
and the `extra=` of the call; `text` is the classic one-liner. `ARKEVO_LOG_LEVEL` (default INFO).

Metrics. `worker_runtime()` builds the process's SDK runtime; with `ARKEVO_METRICS_ADDRESS`
(`0.0.0.0:9464`) its Prometheus exporter serves `/metrics` there: the SDK's own `temporal_*`
metrics and this project's `arkevo_*` counters (`METRICS`), both recorded through the SDK's
metric meter, so one endpoint has both. Counters are counted with `count()` and the helpers
below it: inside an activity on the activity's meter (`activity.metric_meter()`: it also labels
`task_queue`, `activity_type`, `namespace`), elsewhere (a thread that left the activity's
context) on the runtime's meter; with metrics off both are no-ops, and a counter never raises.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import logging
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TextIO

from temporalio import activity, workflow
from temporalio.common import MetricMeter
from temporalio.exceptions import ApplicationError
from temporalio.runtime import (LogForwardingConfig, LoggingConfig, PrometheusConfig, Runtime,
                                TelemetryConfig)

from contracts import queues

LOG_FORMAT_ENV = "ARKEVO_LOG_FORMAT"
LOG_LEVEL_ENV = "ARKEVO_LOG_LEVEL"
METRICS_ADDRESS_ENV = "ARKEVO_METRICS_ADDRESS"
LOG_FORMATS = ("json", "text")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
CORE_LOGGER = "temporalio.core"  # where the SDK core's own (Rust) log lines are forwarded

log = logging.getLogger(__name__)


class TelemetryConfigError(ValueError):
    """A logging or metrics variable has a value that cannot be used (names the variable)."""


@dataclass
class _Process:
    """What this process is: set once by `python -m workers` (tests set it themselves)."""
    pool: str | None = None  # the worker pool, when the process runs one
    meter: MetricMeter = MetricMeter.noop  # the runtime's meter, for counts outside activities


PROCESS = _Process()
_POOL_OF_QUEUE = {queue: pool for pool, queue in queues.POOLS.items()}


def pool_of(task_queue: str | None) -> str | None:
    """The pool a task queue belongs to; else the process's own pool."""
    return _POOL_OF_QUEUE.get(task_queue or "") or PROCESS.pool


# --- logs ---------------------------------------------------------------------------------------

# Attributes every LogRecord has; anything else on a record came from `extra=`.
_RECORD_ATTRS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {
    "message", "asctime", "taskName"}
# Temporal's context dicts (activity.LoggerAdapter, workflow.LoggerAdapter) and core's record.
_TEMPORAL_ATTRS = frozenset({"temporal_activity", "temporal_workflow", "activity_info",
                             "workflow_info", "temporal_log"})
# Their keys, as named in the JSON line (the activity's workflow_run_id is the run_id).
_CONTEXT_KEYS = (("workflow_id", "workflow_id"), ("run_id", "run_id"),
                 ("workflow_run_id", "run_id"), ("workflow_type", "workflow_type"),
                 ("activity_type", "activity_type"), ("activity_id", "activity_id"),
                 ("attempt", "attempt"), ("task_queue", "task_queue"), ("namespace", "namespace"),
                 ("update_id", "update_id"), ("update_name", "update_name"))


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line.

    Hand-written on the stdlib's Formatter rather than a dependency (python-json-logger): the
    fields are a handful of record attributes plus Temporal's context dicts, one `json.dumps`;
    anything not JSON-native is written as its `str()`."""

    def __init__(self, pool: str | None = None):
        super().__init__()
        self.pool = pool

    def format(self, record: logging.LogRecord) -> str:
        return json.dumps(self.fields(record), ensure_ascii=False, default=str)

    def fields(self, record: logging.LogRecord) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")
                  .replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        context: dict[str, Any] = {}
        for attr in ("temporal_workflow", "temporal_activity"):
            details = getattr(record, attr, None)
            if isinstance(details, Mapping):
                for key, name in _CONTEXT_KEYS:
                    if details.get(key) is not None:
                        context[name] = details[key]
        doc["pool"] = self.pool or pool_of(context.get("task_queue"))
        doc.update(context)
        core = getattr(record, "temporal_log", None)
        if core is not None:  # a forwarded SDK core line: its Rust target and fields
            doc["target"] = getattr(core, "target", None)
            if fields := getattr(core, "fields", None):
                doc["fields"] = fields
        if record.exc_info:
            doc["exc"] = self.formatException(record.exc_info)
            if record.exc_info[0] is not None:
                doc["exc_type"] = record.exc_info[0].__name__
        elif record.exc_text:
            doc["exc"] = record.exc_text
        if record.stack_info:
            doc["stack"] = self.formatStack(record.stack_info)
        for key, value in vars(record).items():
            if key not in _RECORD_ATTRS and key not in _TEMPORAL_ATTRS and not key.startswith("_"):
                doc.setdefault(key, value)
        return doc


def log_format(environ: Mapping[str, str] | None = None, default: str = "json") -> str:
    environ = os.environ if environ is None else environ
    value = (environ.get(LOG_FORMAT_ENV) or default).strip().lower()
    if value not in LOG_FORMATS:
        raise TelemetryConfigError(f"{LOG_FORMAT_ENV}={value!r}: expected one of {', '.join(LOG_FORMATS)}")
    return value


def log_level(environ: Mapping[str, str] | None = None, default: str = "INFO") -> int:
    environ = os.environ if environ is None else environ
    value = (environ.get(LOG_LEVEL_ENV) or default).strip()
    level = int(value) if value.isdigit() else logging.getLevelNamesMapping().get(value.upper())
    if level is None:
        raise TelemetryConfigError(f"{LOG_LEVEL_ENV}={value!r}: expected DEBUG, INFO, WARNING, "
                                   "ERROR, CRITICAL or a number")
    return level


def setup_logging(fmt: str | None = None, level: int | str | None = None, *,
                  pool: str | None = None, stream: TextIO | None = None,
                  environ: Mapping[str, str] | None = None) -> logging.Handler:
    """The root logger writes to `stream` (stderr) in `fmt` (else ARKEVO_LOG_FORMAT, default
    json) from `level` up (else ARKEVO_LOG_LEVEL, default INFO). Replaces a handler an earlier
    call installed; returns the new one.

    In json, Temporal's loggers stop appending their context dict to the message: it is in the
    line's own fields."""
    fmt = fmt or log_format(environ)
    if fmt not in LOG_FORMATS:
        raise TelemetryConfigError(f"log format {fmt!r}: expected one of {', '.join(LOG_FORMATS)}")
    if level is None:
        level = log_level(environ)
    elif isinstance(level, str):
        level = log_level({LOG_LEVEL_ENV: level})
    if pool is not None:
        PROCESS.pool = pool
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(JsonFormatter(pool) if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    handler._arkevo = True  # type: ignore[attr-defined]  # what a later call replaces
    # Libraries that set their own loggers to DEBUG (Harbor's) still propagate those records
    # to the root's handlers: the level is held here too.
    handler.setLevel(level)
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "_arkevo", False)]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    activity.logger.activity_info_on_message = fmt != "json"
    workflow.logger.workflow_info_on_message = fmt != "json"
    logging.captureWarnings(True)
    return handler


# --- metrics: the runtime ---------------------------------------------------------------------


def metrics_address(environ: Mapping[str, str] | None = None) -> str | None:
    """ARKEVO_METRICS_ADDRESS as the exporter takes it (IP:PORT), or None (no endpoint).
    `:9464` means every interface, `localhost:9464` the loopback."""
    environ = os.environ if environ is None else environ
    value = (environ.get(METRICS_ADDRESS_ENV) or "").strip()
    if not value:
        return None
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit():
        raise TelemetryConfigError(f"{METRICS_ADDRESS_ENV}={value!r}: expected IP:PORT, "
                                   "e.g. 0.0.0.0:9464")
    host = {"": "0.0.0.0", "localhost": "127.0.0.1"}.get(host, host)
    return f"{host}:{port}"


def worker_runtime(*, metrics: str | None = None, forward_logs: bool = False,
                   pool: str | None = None) -> Runtime:
    """The SDK runtime of a worker process: a Prometheus exporter on `metrics` (IP:PORT) when
    given, and the SDK core's own log lines forwarded into Python logging (logger
    `temporalio.core`) when `forward_logs` -- so that they come out as JSON too. Its meter
    becomes the process's meter for counts made outside an activity's context."""
    logging_config = LoggingConfig.default
    if forward_logs:
        logging_config = LoggingConfig(
            filter=LoggingConfig.default.filter,
            forwarding=LogForwardingConfig(logging.getLogger(CORE_LOGGER),
                                           append_target_to_name=False,
                                           prepend_target_on_message=False,
                                           append_log_fields_to_message=False))
    try:
        runtime = Runtime(telemetry=TelemetryConfig(
            logging=logging_config,
            metrics=PrometheusConfig(bind_address=metrics) if metrics else None))
    except ValueError as exc:  # "Invalid Prometheus address", "Address already in use"
        raise TelemetryConfigError(f"{METRICS_ADDRESS_ENV}={metrics}: {exc}") from exc
    install(runtime, pool=pool)
    return runtime


def install(runtime: Runtime, *, pool: str | None = None) -> None:
    """Count outside activities on `runtime`'s meter (and as `pool`, when given)."""
    PROCESS.meter = runtime.metric_meter
    if pool is not None:
        PROCESS.pool = pool


# --- metrics: this project's counters ---------------------------------------------------------

TRIALS = "arkevo_trials_total"
JUDGE_CALLS = "arkevo_judge_calls_total"
CACHE_LOOKUPS = "arkevo_cache_lookups_total"
SANDBOX_LAUNCHES = "arkevo_sandbox_launches_total"
# name -> (description, labels besides `pool`). Label values are short fixed words or type
# names from the code (never ids, paths or messages): a few series per label.
METRICS: dict[str, tuple[str, tuple[str, ...]]] = {
    TRIALS: ("Trial attempts (run_trial) by outcome: graded (failure_kind none or solver), "
             "error (author, task or infra) or cancelled", ("outcome", "failure_kind", "failure_type")),
    JUDGE_CALLS: ("VL judge requests (judge_vl) by judge and outcome", ("judge", "outcome")),
    CACHE_LOOKUPS: ("Cache lookups by cache and result (hit, miss)", ("cache", "result")),
    SANDBOX_LAUNCHES: ("Trial sandboxes opened (sandbox.isolation.trial.TrialSandbox) by role "
                       "and outcome", ("role", "outcome")),
}
_MAX_LABEL = 64
_counting_failed = False


def _meter() -> tuple[MetricMeter, str | None]:
    """The running activity's meter (any thread that carries its context), else the process's."""
    if activity.in_activity():
        try:
            return activity.metric_meter(), pool_of(activity.info().task_queue)
        except RuntimeError:  # a sync activity in another process: no meter there
            pass
    return PROCESS.meter, PROCESS.pool


def count(name: str, value: int = 1, **labels: object) -> None:
    """Add `value` to the project counter `name` (one of METRICS) with `labels`. Never raises:
    a metric must not fail the work it counts."""
    global _counting_failed
    try:
        description, names = METRICS[name]
        if set(labels) - set(names):
            raise ValueError(f"{name}: unknown labels {sorted(set(labels) - set(names))}")
        meter, pool = _meter()
        attributes = {"pool": pool or "none",
                      **{key: str(labels.get(key, "none"))[:_MAX_LABEL] for key in names}}
        meter.create_counter(name, description).add(value, attributes)
    except Exception:  # noqa: BLE001
        if not _counting_failed:  # once per process: not a line per count
            _counting_failed = True
            log.warning("counting %s failed; further failures are not logged", name, exc_info=True)


def trial_graded(outcome: object) -> None:
    """A trial that returned its outcome: graded, with the solver's failure if it had one."""
    failure = getattr(outcome, "failure", None)
    count(TRIALS, outcome="graded", failure_kind=getattr(failure, "kind", None) or "none",
          failure_type=getattr(failure, "type", None) or "none")


def trial_raised(exc: BaseException) -> None:
    """A trial that raised: cancelled, the author's script (AuthorScriptFailed), the task's
    content (another non-retryable error: PrivacyFinding, InvalidDraft...) or infrastructure
    (anything Temporal retries: TrialInfraError, a Blender crash, a sandbox that would not start)."""
    if isinstance(exc, asyncio.CancelledError):
        count(TRIALS, outcome="cancelled", failure_kind="none", failure_type="none")
        return
    if isinstance(exc, ApplicationError):
        kind = "author" if exc.type == "AuthorScriptFailed" else "task" if exc.non_retryable else "infra"
        failure_type = exc.type or type(exc).__name__
    else:
        kind, failure_type = "infra", type(exc).__name__
    count(TRIALS, outcome="error", failure_kind=kind, failure_type=failure_type)


def counts_trials(fn):
    """Decorates the async trial activity (under `@activity.defn`): counts every attempt's end
    in arkevo_trials_total, then returns or raises as `fn` did."""
    if not inspect.iscoroutinefunction(fn):
        raise TypeError(f"counts_trials: {fn.__qualname__} is not async")

    @functools.wraps(fn)
    async def counted(*args, **kwargs):
        try:
            outcome = await fn(*args, **kwargs)
        except BaseException as exc:
            trial_raised(exc)
            raise
        trial_graded(outcome)
        return outcome
    return counted


def judge_call(judge: str, outcome: str) -> None:
    """One judge_vl request: `judge` model | image-metric; `outcome` scored | missing (no usable
    answer) | cached | refused (4xx) | unavailable (retried)."""
    count(JUDGE_CALLS, judge=judge, outcome=outcome)


def cache_lookup(cache: str, hit: bool) -> None:
    """One lookup of `cache` (evidence, vl_judgement, workspace_build)."""
    count(CACHE_LOOKUPS, cache=cache, result="hit" if hit else "miss")


def sandbox_launch(sandbox: object, outcome: str) -> None:
    """A TrialSandbox opened (`outcome` started) or not (unavailable: the host cannot run it;
    failed: slot, namespaces or cgroup). Role: verifier, script (sandbox.script_run) or solver."""
    role = ("verifier" if getattr(sandbox, "verifier", False)
            else "script" if str(getattr(sandbox, "name", "")).startswith("script-") else "solver")
    count(SANDBOX_LAUNCHES, role=role, outcome=outcome)

