"""observability.telemetry: JSON log lines (from a plain logger, from inside a real activity run by
ActivityEnvironment and from a real workflow), the project's counters with their labels (the
SDK's own meter, buffered), and one Prometheus endpoint serving both the SDK's metrics and the
arkevo_ counters of a real Worker on a real dev server (scraped over HTTP)."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import logging
import re
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

import httpx
import pytest
from temporalio import activity, workflow
from temporalio.common import MetricMeter, RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.runtime import MetricBuffer, Runtime, TelemetryConfig
from temporalio.testing import ActivityEnvironment
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

from contracts import queues
from tests.conftest import free_port
from observability import telemetry
from workers.client import connect


@pytest.fixture
def restore_logging(monkeypatch):
    """setup_logging changes the root logger and Temporal's adapters: put them back."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    monkeypatch.setattr(activity.logger, "activity_info_on_message", activity.logger.activity_info_on_message)
    monkeypatch.setattr(workflow.logger, "workflow_info_on_message", workflow.logger.workflow_info_on_message)
    monkeypatch.setattr(telemetry.PROCESS, "pool", None)
    monkeypatch.setattr(telemetry.PROCESS, "meter", MetricMeter.noop)
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    logging.captureWarnings(False)


def json_lines(stream: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]


# --- logs -----------------------------------------------------------------------------------


def test_a_worker_logger_writes_one_json_object_per_line(restore_logging):
    out = io.StringIO()
    telemetry.setup_logging("json", "INFO", pool="cpu", stream=out)
    log = logging.getLogger("workers.something")
    log.info("worker %s on %s", "cpu", queues.CPU, extra={"concurrency": 4})
    log.debug("below the level")
    try:
        raise ValueError("broken\nacross lines")
    except ValueError:
        log.exception("it failed")

    first, failed = json_lines(out)
    assert datetime.fromisoformat(first["ts"]).utcoffset() == timedelta(0)
    assert first["ts"].endswith("Z")
    assert {k: first[k] for k in ("level", "logger", "message", "pool", "concurrency")} == {
        "level": "INFO", "logger": "workers.something", "message": "worker cpu on arkevo-cpu",
        "pool": "cpu", "concurrency": 4}
    assert failed["level"] == "ERROR" and failed["message"] == "it failed"
    assert failed["exc_type"] == "ValueError"
    assert failed["exc"].startswith("Traceback (most recent call last):")
    assert failed["exc"].endswith("ValueError: broken\nacross lines")
    assert len(out.getvalue().splitlines()) == 2  # the multi-line exception stays on its line


async def test_json_lines_from_inside_a_real_activity_carry_its_context(restore_logging):
    out = io.StringIO()
    telemetry.setup_logging("json", "INFO", stream=out)  # no process pool: from the task queue

    @activity.defn(name="render_evidence")
    async def render(n: int) -> int:
        activity.logger.info("rendering %d views", n)
        try:
            1 / 0
        except ZeroDivisionError:
            activity.logger.exception("a view failed")
        await asyncio.to_thread(activity.logger.warning, "from a worker thread")
        return n

    env = ActivityEnvironment()
    env.info = dataclasses.replace(ActivityEnvironment.default_info(), task_queue=queues.GPU,
                                   activity_type="render_evidence", attempt=3,
                                   workflow_id="seed-1.06-evaluation", workflow_run_id="run-42")
    assert await env.run(render, 4) == 4

    lines = json_lines(out)
    assert [line["message"] for line in lines] == [  # the context is in fields, not the message
        "rendering 4 views", "a view failed", "from a worker thread"]
    for line in lines:
        assert line["logger"] == "temporalio.activity"
        assert {k: line[k] for k in ("pool", "workflow_id", "run_id", "activity_type", "attempt",
                                     "task_queue", "namespace")} == {
            "pool": "gpu", "workflow_id": "seed-1.06-evaluation", "run_id": "run-42",
            "activity_type": "render_evidence", "attempt": 3, "task_queue": queues.GPU,
            "namespace": "default"}
    assert "ZeroDivisionError: division by zero" in lines[1]["exc"]
    assert lines[2]["level"] == "WARNING"


def test_text_format_and_the_variables(restore_logging):
    out = io.StringIO()
    telemetry.setup_logging(stream=out, environ={"ARKEVO_LOG_FORMAT": "text", "ARKEVO_LOG_LEVEL": "warning"})
    logging.getLogger("workers").info("hidden")
    logging.getLogger("workers").warning("shown")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d [\d:,]+ WARNING workers: shown\n", out.getvalue())
    assert activity.logger.activity_info_on_message  # text keeps the SDK's own suffix

    assert telemetry.log_format({}) == "json"  # the default of `python -m workers`
    assert telemetry.log_level({"ARKEVO_LOG_LEVEL": "10"}) == logging.DEBUG
    with pytest.raises(telemetry.TelemetryConfigError, match="ARKEVO_LOG_FORMAT='yaml'"):
        telemetry.log_format({"ARKEVO_LOG_FORMAT": "yaml"})
    with pytest.raises(telemetry.TelemetryConfigError, match="ARKEVO_LOG_LEVEL='loud'"):
        telemetry.log_level({"ARKEVO_LOG_LEVEL": "loud"})

    out2 = io.StringIO()  # a second setup replaces the first handler, not adds one
    telemetry.setup_logging("json", "INFO", stream=out2)
    logging.getLogger("workers").warning("once")
    assert out.getvalue().count("\n") == 1 and len(json_lines(out2)) == 1


def test_metrics_address_variable():
    assert telemetry.metrics_address({}) is None
    assert telemetry.metrics_address({"ARKEVO_METRICS_ADDRESS": "0.0.0.0:9464"}) == "0.0.0.0:9464"
    assert telemetry.metrics_address({"ARKEVO_METRICS_ADDRESS": ":9464"}) == "0.0.0.0:9464"
    assert telemetry.metrics_address({"ARKEVO_METRICS_ADDRESS": "localhost:9464"}) == "127.0.0.1:9464"
    with pytest.raises(telemetry.TelemetryConfigError, match="ARKEVO_METRICS_ADDRESS='9464'"):
        telemetry.metrics_address({"ARKEVO_METRICS_ADDRESS": "9464"})
    taken = free_port()
    with pytest.raises(telemetry.TelemetryConfigError, match="ARKEVO_METRICS_ADDRESS=256.1.1.1"):
        telemetry.worker_runtime(metrics=f"256.1.1.1:{taken}")


# --- counters through the SDK's meter ---------------------------------------------------------


@pytest.fixture(scope="module")
def buffered():
    """A runtime whose meter records into a buffer: what the counters sent, with labels."""
    buffer = MetricBuffer(10_000)
    runtime = Runtime(telemetry=TelemetryConfig(metrics=buffer))

    def drain() -> list[tuple[str, int, dict]]:
        return [(u.metric.name, u.value,
                 {k: v for k, v in u.attributes.items() if k != "service_name"})  # the SDK's own
                for u in buffer.retrieve_updates() if u.metric.name.startswith("arkevo_")]
    drain()
    return runtime, drain


@dataclasses.dataclass
class Failure:
    kind: str
    type: str


@dataclasses.dataclass
class Outcome:
    failure: Failure | None = None


async def test_trial_outcomes_by_kind_on_the_activity_meter(buffered, monkeypatch):
    runtime, drain = buffered
    monkeypatch.setattr(telemetry.PROCESS, "meter", MetricMeter.noop)

    @activity.defn(name="run_trial")
    @telemetry.counts_trials
    async def trial(what: str) -> Outcome:
        if what == "author":
            raise ApplicationError("solution.py, line 3: boom", type="AuthorScriptFailed", non_retryable=True)
        if what == "privacy":
            raise ApplicationError("tests/x.py:1:1 secret", type="PrivacyFinding", non_retryable=True)
        if what == "infra":
            raise RuntimeError("sandbox slot busy")
        if what == "cancel":
            raise asyncio.CancelledError()
        return Outcome(Failure("solver", "AgentTimeout") if what == "timeout" else None)

    env = ActivityEnvironment()
    env.metric_meter = runtime.metric_meter
    env.info = dataclasses.replace(ActivityEnvironment.default_info(), task_queue=queues.GPU,
                                   activity_type="run_trial")
    assert (await env.run(trial, "ok")).failure is None
    assert (await env.run(trial, "timeout")).failure.type == "AgentTimeout"
    for what, error in (("author", ApplicationError), ("privacy", ApplicationError),
                        ("infra", RuntimeError), ("cancel", asyncio.CancelledError)):
        with pytest.raises(error):
            await env.run(trial, what)

    seen = [(value, {k: a[k] for k in ("pool", "outcome", "failure_kind", "failure_type")})
            for name, value, a in drain() if name == "arkevo_trials_total"]
    assert seen == [
        (1, {"pool": "gpu", "outcome": "graded", "failure_kind": "none", "failure_type": "none"}),
        (1, {"pool": "gpu", "outcome": "graded", "failure_kind": "solver", "failure_type": "AgentTimeout"}),
        (1, {"pool": "gpu", "outcome": "error", "failure_kind": "author", "failure_type": "AuthorScriptFailed"}),
        (1, {"pool": "gpu", "outcome": "error", "failure_kind": "task", "failure_type": "PrivacyFinding"}),
        (1, {"pool": "gpu", "outcome": "error", "failure_kind": "infra", "failure_type": "RuntimeError"}),
        (1, {"pool": "gpu", "outcome": "cancelled", "failure_kind": "none", "failure_type": "none"}),
    ]


def test_counts_outside_an_activity_go_to_the_process_meter(buffered, monkeypatch):
    runtime, drain = buffered
    monkeypatch.setattr(telemetry.PROCESS, "meter", runtime.metric_meter)
    monkeypatch.setattr(telemetry.PROCESS, "pool", "gpu")

    class Sandbox:  # what sandbox.isolation.trial.TrialSandbox carries
        def __init__(self, name, verifier=False):
            self.name, self.verifier = name, verifier

    telemetry.sandbox_launch(Sandbox("trial-1__solver"), "started")
    telemetry.sandbox_launch(Sandbox("trial-1__verifier", verifier=True), "failed")
    telemetry.sandbox_launch(Sandbox("script-render_evidence"), "unavailable")
    telemetry.cache_lookup("evidence", hit=True)
    telemetry.judge_call("image-metric", "scored")
    assert drain() == [
        ("arkevo_sandbox_launches_total", 1, {"pool": "gpu", "role": "solver", "outcome": "started"}),
        ("arkevo_sandbox_launches_total", 1, {"pool": "gpu", "role": "verifier", "outcome": "failed"}),
        ("arkevo_sandbox_launches_total", 1, {"pool": "gpu", "role": "script", "outcome": "unavailable"}),
        ("arkevo_cache_lookups_total", 1, {"pool": "gpu", "cache": "evidence", "result": "hit"}),
        ("arkevo_judge_calls_total", 1, {"pool": "gpu", "judge": "image-metric", "outcome": "scored"}),
    ]


async def test_a_counter_never_breaks_the_activity(monkeypatch, caplog):
    class Broken:  # a meter that fails whatever is asked of it
        def __getattr__(self, name):
            raise RuntimeError("meter is gone")

    monkeypatch.setattr(telemetry.PROCESS, "meter", Broken())
    monkeypatch.setattr(telemetry, "_counting_failed", False)

    @activity.defn
    async def judged() -> str:
        telemetry.judge_call("model", "scored")  # the activity meter: metrics off (no-op)
        await asyncio.to_thread(telemetry.cache_lookup, "evidence", True)
        threading_result = []
        t = threading.Thread(target=lambda: threading_result.append(
            telemetry.cache_lookup("evidence", False)))  # no context: the broken process meter
        t.start()
        t.join()
        return "done"

    with caplog.at_level(logging.WARNING, logger="observability.telemetry"):
        assert await ActivityEnvironment().run(judged) == "done"
        telemetry.count("arkevo_no_such_counter")
    assert [r.message for r in caplog.records] == [
        "counting arkevo_cache_lookups_total failed; further failures are not logged"]


# --- one /metrics endpoint: SDK metrics + arkevo_ counters, from a real worker ---------------


@dataclasses.dataclass
class Step:
    what: str


@activity.defn(name="tiny_trial")
@telemetry.counts_trials
async def tiny_trial(step: Step) -> Outcome:
    activity.logger.info("trial %s", step.what)
    if step.what == "author":
        raise ApplicationError("draft/solution.py, line 2: NameError", type="AuthorScriptFailed",
                               non_retryable=True)
    telemetry.judge_call("image-metric", "scored")
    return Outcome(Failure("solver", "DeliveryMissing"))


@activity.defn(name="tiny_cache")
def tiny_cache(step: Step) -> str:
    """A threaded sync activity (as on the cpu pool) counting on the activity's meter, and a
    thread of its own (no activity context) counting on the runtime's."""
    telemetry.cache_lookup("workspace_build", hit=True)
    thread = threading.Thread(target=telemetry.sandbox_launch,
                              args=(type("S", (), {"name": "script-x", "verifier": False})(), "started"))
    thread.start()
    thread.join()
    return step.what


@workflow.defn(name="TinyTelemetry")
class TinyTelemetry:
    @workflow.run
    async def run(self) -> str:
        workflow.logger.info("telemetry workflow started")
        opts = dict(start_to_close_timeout=timedelta(seconds=30),
                    retry_policy=RetryPolicy(maximum_attempts=1))
        await workflow.execute_activity(tiny_trial, Step("ok"), **opts)
        try:
            await workflow.execute_activity(tiny_trial, Step("author"), **opts)
        except ActivityError:
            pass
        return await workflow.execute_activity(tiny_cache, Step("cached"), **opts)


SAMPLE = re.compile(r'^(?P<name>[a-zA-Z_:][\w:]*)(?:\{(?P<labels>.*)\})? (?P<value>\S+)$')


def scrape(port: int) -> list[tuple[str, dict, float]]:
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    samples = []
    for line in text.splitlines():
        if line and not line.startswith("#") and (m := SAMPLE.match(line)):
            labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m["labels"] or ""))
            samples.append((m["name"], labels, float(m["value"])))
    return samples


@pytest.mark.temporal
async def test_one_endpoint_serves_sdk_metrics_and_arkevo_counters(temporal_env, tmp_path,
                                                                   restore_logging, monkeypatch):
    out = io.StringIO()
    telemetry.setup_logging("json", "INFO", pool="cpu", stream=out)
    port = free_port()
    runtime = telemetry.worker_runtime(metrics=f"127.0.0.1:{port}", pool="cpu")
    assert telemetry.PROCESS.meter is runtime.metric_meter
    profile = tmp_path / "temporal.toml"
    profile.write_text(f'[profile.local]\naddress = "127.0.0.1:{temporal_env.port}"\n'
                       'namespace = "default"\n')
    client = await connect(runtime=runtime, environ={"TEMPORAL_CONFIG_FILE": str(profile),
                                                     "TEMPORAL_PROFILE": "local"})
    queue = f"telemetry-{uuid.uuid4().hex[:8]}"  # not a pool's queue: the process pool labels
    with ThreadPoolExecutor(max_workers=2) as executor:
        async with Worker(client, task_queue=queue, workflows=[TinyTelemetry],
                          activities=[tiny_trial, tiny_cache], activity_executor=executor,
                          workflow_runner=UnsandboxedWorkflowRunner()):
            wid = f"telemetry-{uuid.uuid4().hex[:8]}"
            assert await client.execute_workflow(TinyTelemetry.run, id=wid, task_queue=queue) == "cached"
            samples = []
            for _ in range(50):  # the exporter reads the meter as it is scraped
                samples = scrape(port)
                if any(n == "arkevo_sandbox_launches_total" for n, _, _ in samples):
                    break
                await asyncio.sleep(0.1)

    def find(name: str, **labels) -> list[tuple[dict, float]]:
        return [(got, v) for n, got, v in samples
                if n == name and all(got.get(k) == v for k, v in labels.items())]

    # The SDK's own metrics, on the same endpoint.
    sdk = {n for n, _, _ in samples if n.startswith("temporal_")}
    assert find("temporal_activity_execution_latency_count", task_queue=queue, activity_type="tiny_trial")
    assert {"temporal_worker_task_slots_available", "temporal_workflow_completed"} <= sdk
    # The project's counters, with their labels and values.
    [(labels, value)] = find("arkevo_trials_total", outcome="graded")
    assert value == 1 and labels["failure_kind"] == "solver" and labels["failure_type"] == "DeliveryMissing"
    assert labels["pool"] == "cpu" and labels["task_queue"] == queue
    assert labels["activity_type"] == "tiny_trial"
    [(labels, value)] = find("arkevo_trials_total", outcome="error")
    assert value == 1 and (labels["failure_kind"], labels["failure_type"]) == ("author", "AuthorScriptFailed")
    assert [v for _, v in find("arkevo_judge_calls_total", judge="image-metric", outcome="scored")] == [1]
    [(labels, value)] = find("arkevo_cache_lookups_total", cache="workspace_build", result="hit")
    assert value == 1 and labels["activity_type"] == "tiny_cache"  # from the activity's thread
    [(labels, value)] = find("arkevo_sandbox_launches_total", role="script", outcome="started")
    assert value == 1 and labels["pool"] == "cpu" and "activity_type" not in labels  # runtime meter

    # The workflow's and the activities' log lines, as JSON with their ids.
    lines = json_lines(out)
    [started] = [x for x in lines if x["message"] == "telemetry workflow started"]
    assert started["workflow_id"] == wid and started["run_id"] and started["task_queue"] == queue
    assert started["workflow_type"] == "TinyTelemetry" and started["pool"] == "cpu"
    trial_lines = [x for x in lines if x["message"].startswith("trial ")]
    assert {x["activity_type"] for x in trial_lines} == {"tiny_trial"}
    assert all(x["workflow_id"] == wid and x["run_id"] == started["run_id"] and x["attempt"] == 1
               for x in trial_lines)
