"""Worker Deployment Versioning and graceful shutdown (docs/operations.md, "Worker versioning
and shutdown"), on a dev server of this module's own (the real `temporal` binary).

Checked: the four pools from `build_worker`, in a process started with ARKEVO_DEPLOYMENT_NAME
(versioning is decided when a process starts), register as `<deployment>.<build id>` with the
build id this process computes from the same code; a workflow started before promotion waits,
`workers.promote.promote` makes the version current once every queue has its poller, and the run
then completes, pinned or auto-upgrade as its type declares (describe) and as the docs table
says; unversioned processes (this one) declare no behaviour; promotion fails with the reason
when the version or a pool's poller is missing; the build id follows the code, not the docs or
tests; a stopping gpu worker lets a running activity deliver within its graceful timeout, and
past it the activity is cancelled and retried on another worker with its last heartbeat.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from temporalio import activity, workflow
from temporalio.api.enums.v1 import VersioningBehavior as BehaviorProto
from temporalio.client import WorkflowFailureError
from temporalio.common import RetryPolicy, VersioningBehavior, WorkerDeploymentVersion
from temporalio.worker import Worker, WorkerDeploymentConfig

from contracts import queues
from contracts.payloads.admission import AdmissionInput, AdmissionResult
from contracts.payloads.datasets import DatasetProductionInput
from workers.pools import GRACEFUL_SHUTDOWN_SEC, WORKFLOWS, build_worker, pool_options
from workers.promote import PromoteError, build_id, code_digest, deployment_version, promote
from workers.settings import PROJECT_ROOT, Settings
from workflows import versioning
from workflows.versioning import versioned
from workflows.activity_options import GPU

DEPLOYMENT = "arkevo-test"
DOCS = PROJECT_ROOT / "docs" / "operations.md"


def _settings(env, tmp_path) -> Settings:
    return Settings(address=env.client.service_client.config.target_host, namespace="default",
                    var=tmp_path / "var")


def _versioning_info(description):
    return description.raw_description.workflow_execution_info.versioning_info


def test_an_unversioned_process_declares_no_behaviour(monkeypatch):
    """The server refuses a behaviour from an unversioned worker: here (no ARKEVO_DEPLOYMENT_NAME
    at start) every type's behaviour is UNSPECIFIED, and switching versioning on afterwards is
    refused instead of building workers that would fail every workflow task."""
    assert not versioning.VERSIONED
    assert versioned(VersioningBehavior.PINNED) == VersioningBehavior.UNSPECIFIED
    for wf in WORKFLOWS:
        assert workflow._Definition.must_from_class(wf).versioning_behavior == VersioningBehavior.UNSPECIFIED
    monkeypatch.setenv("ARKEVO_DEPLOYMENT_NAME", DEPLOYMENT)
    with pytest.raises(RuntimeError, match="before the process starts"):
        pool_options("control")


def test_versioning_is_off_unless_asked_for():
    assert deployment_version({}) is None
    assert deployment_version({"ARKEVO_WORKER_VERSIONING": "0", "ARKEVO_DEPLOYMENT_NAME": "x"}) is None
    assert deployment_version({"ARKEVO_WORKER_VERSIONING": "1"}) == WorkerDeploymentVersion("arkevo", build_id())
    assert deployment_version({"ARKEVO_DEPLOYMENT_NAME": "prod"}) == WorkerDeploymentVersion("prod", build_id())
    with pytest.raises(ValueError, match="cannot contain '.'"):
        deployment_version({"ARKEVO_DEPLOYMENT_NAME": "a.b"})
    with pytest.raises(ValueError, match="ARKEVO_WORKER_VERSIONING"):
        deployment_version({"ARKEVO_WORKER_VERSIONING": "maybe"})
    assert pool_options("gpu", {})["deployment_config"] is None


def test_the_build_id_follows_the_code_not_the_docs_or_tests(tmp_path):
    (tmp_path / "workflows").mkdir()
    (tmp_path / "workflows" / "__init__.py").write_text("")
    (tmp_path / "workflows" / "flow.py").write_text("A = 1\nB = 2\n")
    (tmp_path / "activities").mkdir()  # a namespace package: no __init__.py, still code
    (tmp_path / "activities" / "acts.py").write_text("def act(): return 1\n")
    (tmp_path / "contracts" / "schemas").mkdir(parents=True)
    (tmp_path / "contracts" / "queues.py").write_text("Q = 'q'\n")
    (tmp_path / "contracts" / "schemas" / "s.json").write_text('{"a": 1, "b": 2}')
    for folder in ("tests", "bench"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.py").write_text("x = 1\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "x.md").write_text("# x\n")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / "uv.lock").write_text("version = 1\n")
    before = code_digest(tmp_path)
    assert code_digest(tmp_path) == before  # stable

    (tmp_path / "docs" / "x.md").write_text("# y\n")
    (tmp_path / "tests" / "x.py").write_text("x = 2\n")
    (tmp_path / "bench" / "x.py").write_text("x = 2\n")
    (tmp_path / "workflows" / "__pycache__").mkdir()
    (tmp_path / "workflows" / "__pycache__" / "flow.cpython-313.pyc").write_bytes(b"\0")
    (tmp_path / "workflows" / "flow.py").write_bytes(b"A = 1\r\nB = 2\r\n")  # a CRLF checkout
    (tmp_path / "contracts" / "schemas" / "s.json").write_text('{\n  "b": 2,\n  "a": 1\n}\n')
    assert code_digest(tmp_path) == before

    for path, text in (("workflows/flow.py", "A = 1\nB = 3\n"), ("activities/acts.py", "def act(): return 2\n"),
                       ("contracts/schemas/s.json", '{"a": 1}'), ("uv.lock", "version = 2\n")):
        changed = tmp_path / path
        old = changed.read_text()
        changed.write_text(text)
        assert code_digest(tmp_path) != before, path
        changed.write_text(old)
    assert code_digest(tmp_path) == before


def test_promote_command_prints_the_workers_build_id_and_has_help():
    run = lambda *a: subprocess.run([sys.executable, "-m", "workers.promote", *a], cwd=PROJECT_ROOT,  # noqa: E731
                                    capture_output=True, text=True, timeout=60)
    printed = run("--print-build-id")
    assert printed.returncode == 0 and printed.stdout.strip() == code_digest(PROJECT_ROOT)[:16]
    helped = run("--help")
    assert helped.returncode == 0 and "--print-build-id" in helped.stdout and "ARKEVO_DEPLOYMENT_NAME" in helped.stdout


# --- versioned pools on a real server --------------------------------------------------------------

# The four pools as `python -m workers <pool>` builds them, in one process started with
# versioning on; it prints its version and every type's behaviour once all four poll.
POOLS_PROCESS = """
import asyncio, json, signal
from concurrent.futures import ThreadPoolExecutor
from temporalio import workflow
from temporalio.client import Client
from contracts import queues
from workers.pools import WORKFLOWS, build_worker
from workers.settings import settings_from_env

async def main():
    settings = settings_from_env()
    client = await Client.connect(settings.address, namespace=settings.namespace)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    with ThreadPoolExecutor(4) as executor:
        pools = [build_worker(p, client, settings, concurrency=2, executor=executor) for p in queues.POOLS]
        async with pools[0], pools[1], pools[2], pools[3]:
            print(json.dumps({
                "versions": sorted({w.config()["deployment_config"].version.to_canonical_string() for w in pools}),
                "behaviours": {d.name: d.versioning_behavior.name
                               for d in map(workflow._Definition.must_from_class, WORKFLOWS)}}), flush=True)
            await stop.wait()

asyncio.run(main())
from workers.client import exit_process  # as python -m workers leaves (temporalio/sdk-python#300)
exit_process(0)
"""


async def test_versioned_pools_get_work_once_promoted_pinned_or_auto_upgrade_per_type(env, tmp_path):
    target = env.client.service_client.config.target_host
    environ = {k: v for k, v in os.environ.items() if k != "ARKEVO_WORKER_VERSIONING"}
    environ.update(ARKEVO_DEPLOYMENT_NAME=DEPLOYMENT, ARKEVO_TEMPORAL_ADDRESS=target,
                   ARKEVO_VAR=str(tmp_path / "var"))
    log = tmp_path / "pools.log"
    with log.open("wb") as stderr:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", POOLS_PROCESS, cwd=PROJECT_ROOT, env=environ,
            stdout=asyncio.subprocess.PIPE, stderr=stderr)
    try:
        try:
            ready = json.loads(await asyncio.wait_for(proc.stdout.readline(), 60))
        except (asyncio.TimeoutError, json.JSONDecodeError) as e:
            raise AssertionError(f"versioned pools did not start: {log.read_text()[-3000:]}") from e
        # One version for all four pools, and the build id this process computes from the same
        # files (afresh: the cached one dates from this process's start).
        [canonical] = ready["versions"]
        version = WorkerDeploymentVersion.from_canonical_string(canonical)
        assert version == WorkerDeploymentVersion(DEPLOYMENT, code_digest(PROJECT_ROOT)[:16])

        # Every type declares pinned or auto-upgrade, and docs/operations.md's table says which.
        section = DOCS.read_text().split("## Worker versioning and shutdown", 1)[1]
        for name, behaviour in ready["behaviours"].items():
            assert behaviour in ("PINNED", "AUTO_UPGRADE"), f"{name}: {behaviour}"
            word = {"PINNED": "pinned", "AUTO_UPGRADE": "auto-upgrade"}[behaviour]
            assert f"| `{name}` | {word} |" in section, name

        # Not current yet: a workflow started now waits (nothing unversioned polls).
        admission = await env.client.start_workflow(
            "Admission", AdmissionInput("seeds/table-model", "2026-12-01T00:00:00+00:00"),
            id="versioned-admission", task_queue=queues.CONTROL, result_type=AdmissionResult)
        await asyncio.sleep(0.5)
        assert not [e for e in (await admission.fetch_history()).events
                    if e.HasField("workflow_task_started_event_attributes")]

        done = await promote(env.client, version, timeout=30, interval=0.2)
        assert done.version == f"{DEPLOYMENT}.{version.build_id}" and not done.already_current
        result = await asyncio.wait_for(admission.result(), 30)
        assert result.seed_id == "table-model"
        info = _versioning_info(await admission.describe())
        assert info.behavior == BehaviorProto.VERSIONING_BEHAVIOR_PINNED
        assert (info.deployment_version.deployment_name, info.deployment_version.build_id) == (
            DEPLOYMENT, version.build_id)

        # An auto-upgrade type: a DatasetProduction whose spec its real cpu activity refuses.
        with pytest.raises(WorkflowFailureError):
            await asyncio.wait_for(env.client.execute_workflow(
                "DatasetProduction", DatasetProductionInput(spec={"bad": 1}), id="versioned-dataset",
                task_queue=queues.CONTROL), 30)
        info = _versioning_info(await env.client.get_workflow_handle("versioned-dataset").describe())
        assert info.behavior == BehaviorProto.VERSIONING_BEHAVIOR_AUTO_UPGRADE
        assert info.deployment_version.build_id == version.build_id

        again = await promote(env.client, version, timeout=5, interval=0.2)
        assert again.already_current
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)  # as docker stop does: the pools shut down cleanly
            try:
                await asyncio.wait_for(proc.wait(), 30)
            except asyncio.TimeoutError:
                proc.kill()
                await proc.wait()
    assert proc.returncode == 0, log.read_text()[-3000:]


async def test_promote_fails_with_the_reason_when_the_version_never_polls(env):
    missing = WorkerDeploymentVersion(DEPLOYMENT, "no-such-build")
    with pytest.raises(PromoteError) as e:  # gives up after its timeout, saying so
        await promote(env.client, missing, timeout=1, interval=0.3)
    assert "not made current within 1s" in str(e.value) and "does not exist yet" in str(e.value)

    target = env.client.service_client.config.target_host
    cli = await asyncio.to_thread(subprocess.run, [
        sys.executable, "-m", "workers.promote", "--address", target, "--build-id", "no-such-build",
        "--deployment-name", DEPLOYMENT, "--timeout", "1", "--interval", "0.3"],
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=60)
    assert cli.returncode == 1 and "FAILED" in cli.stderr and "does not exist yet" in cli.stderr, cli.stderr


@workflow.defn(name="VersionedNoop", sandboxed=False, versioning_behavior=VersioningBehavior.PINNED)
class VersionedNoop:
    @workflow.run
    async def run(self) -> None:
        return None


@activity.defn(name="noop")
async def noop() -> None:
    return None


async def test_promote_names_the_pools_without_a_poller_of_the_build(env):
    partial = WorkerDeploymentVersion(DEPLOYMENT, "partial")  # only control and cpu of it run
    config = WorkerDeploymentConfig(version=partial, use_worker_versioning=True)
    async with Worker(env.client, task_queue=queues.CONTROL, workflows=[VersionedNoop], deployment_config=config), \
            Worker(env.client, task_queue=queues.CPU, activities=[noop], deployment_config=config):
        with pytest.raises(PromoteError) as e:
            await promote(env.client, partial, timeout=3, interval=0.3)
    message = str(e.value)
    assert f"{queues.GPU} (activity)" in message and f"{queues.LLM} (activity)" in message
    assert queues.CPU not in message and queues.CONTROL not in message


# --- graceful shutdown -------------------------------------------------------------------------------

GRACE_CONTROL, GRACE_GPU = "grace-control", "grace-gpu"


@activity.defn(name="fake_trial")
async def fake_trial(seconds: float) -> str:
    """A trial stand-in that heartbeats its progress like the real ones (trial_backends.py)."""
    info = activity.info()
    resumed = info.heartbeat_details[0] if info.heartbeat_details else None
    if info.attempt > 1:
        return f"attempt {info.attempt} after a heartbeat at {resumed}"
    begun = time.monotonic()
    while (elapsed := time.monotonic() - begun) < seconds:
        activity.heartbeat(round(elapsed, 1))
        await asyncio.sleep(0.1)
    return f"attempt {info.attempt} done"


@workflow.defn(name="GraceTrial", sandboxed=False)
class GraceTrial:
    @workflow.run
    async def run(self, seconds: float) -> str:
        options = dict(GPU, task_queue=GRACE_GPU, retry_policy=RetryPolicy(
            initial_interval=timedelta(milliseconds=100), maximum_attempts=4))
        return await workflow.execute_activity("fake_trial", seconds, result_type=str, **options)


def test_each_pool_has_its_graceful_timeout_and_the_variable_overrides_it(monkeypatch, env, tmp_path):
    monkeypatch.delenv("ARKEVO_GRACEFUL_SHUTDOWN_SEC", raising=False)
    assert pool_options("gpu")["graceful_shutdown_timeout"] == timedelta(seconds=GRACEFUL_SHUTDOWN_SEC["gpu"])
    assert GRACEFUL_SHUTDOWN_SEC["gpu"] >= 300 and GRACEFUL_SHUTDOWN_SEC["control"] == 0
    with ThreadPoolExecutor(1) as executor:
        gpu = build_worker("gpu", env.client, _settings(env, tmp_path), concurrency=1, executor=executor)
    assert gpu.config()["deployment_config"] is None  # unversioned unless the process starts versioned
    assert gpu.config()["graceful_shutdown_timeout"] == timedelta(seconds=600)
    monkeypatch.setenv("ARKEVO_GRACEFUL_SHUTDOWN_SEC", "42.5")
    assert pool_options("cpu")["graceful_shutdown_timeout"] == timedelta(seconds=42.5)
    for bad in ("-1", "soon", "nan"):
        monkeypatch.setenv("ARKEVO_GRACEFUL_SHUTDOWN_SEC", bad)
        with pytest.raises(ValueError, match="ARKEVO_GRACEFUL_SHUTDOWN_SEC"):
            pool_options("gpu")


async def _stop_gpu_worker_during_a_trial(env, wid: str, trial_seconds: float):
    """Start a GraceTrial on a gpu worker with the gpu pool's options, stop that worker (what
    SIGTERM does) 0.4 s into the activity; return the workflow handle. What the stop did is
    read from the outcome and the history, never from how long it took (a loaded machine)."""
    gpu = Worker(env.client, task_queue=GRACE_GPU, activities=[fake_trial], **pool_options("gpu"))
    running = asyncio.create_task(gpu.run())
    handle = await env.client.start_workflow(GraceTrial.run, trial_seconds, id=wid, task_queue=GRACE_CONTROL)
    for _ in range(100):  # until the activity runs
        described = await handle.describe()
        if described.raw_description.pending_activities:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.4)
    await gpu.shutdown()
    await running
    return handle


async def test_a_stopping_worker_lets_a_running_trial_deliver_or_hands_it_over(env, monkeypatch):
    monkeypatch.delenv("ARKEVO_DEPLOYMENT_NAME", raising=False)
    monkeypatch.delenv("ARKEVO_WORKER_VERSIONING", raising=False)
    async with Worker(env.client, task_queue=GRACE_CONTROL, workflows=[GraceTrial], **pool_options("control")):
        # Within the graceful timeout: the stop waits for the trial, whose result is delivered.
        monkeypatch.setenv("ARKEVO_GRACEFUL_SHUTDOWN_SEC", "5")
        handle = await _stop_gpu_worker_during_a_trial(env, "grace-finishes", 1.5)
        assert await asyncio.wait_for(handle.result(), 10) == "attempt 1 done"  # the stop waited

        # Past it: cancelled as WorkerShutdown, retried on the next gpu worker with its heartbeat.
        monkeypatch.setenv("ARKEVO_GRACEFUL_SHUTDOWN_SEC", "0.5")
        handle = await _stop_gpu_worker_during_a_trial(env, "grace-hands-over", 30)
        async with Worker(env.client, task_queue=GRACE_GPU, activities=[fake_trial], **pool_options("gpu")):
            result = await asyncio.wait_for(handle.result(), 15)
        assert result.startswith("attempt 2 after a heartbeat at ")
        started = [e.activity_task_started_event_attributes for e in (await handle.fetch_history()).events
                   if e.HasField("activity_task_started_event_attributes")]
        assert started[-1].attempt == 2
        assert started[-1].last_failure.application_failure_info.type == "WorkerShutdown"
