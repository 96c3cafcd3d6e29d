"""Helpers of bench/load.py: a throw-away deployment (its own var folder seeded with one frozen
publication, a Temporal dev server on free ports, the four real worker pools), RSS sampling of
the worker processes from /proc, and the figures read from workflow histories.

Nothing here touches the project's own var/: the publication and the store blobs it reaches
are copied out of it (read only) into the bench's folder, and every worker writes there.
"""

from __future__ import annotations

import json
import math
import os
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from storage.content import ContentStore, FilesystemStore  # noqa: E402
from storage.objects import FilesystemObjects, ObjectMissing, ObjectStore  # noqa: E402
from publications.layout import records_key  # noqa: E402
from publications.reader import read_publication  # noqa: E402
from workers.stack import (DEV_SERVER_SQLITE, POOLS, SEARCH_ATTRIBUTES, free_port, port_open,  # noqa: E402
                           temporal_bin)

SHA256 = re.compile(r"^[0-9a-f]{64}$")


class BenchError(Exception):
    """Said to the user as it stands (bad input, nothing to evaluate, a process that died)."""


# -- the frozen publication the trials evaluate ------------------------------------------------------


def run_main(main_async, args, console) -> int:
    """A bench's exit status around `main_async(args)`: 2 with the message for a BenchError,
    130 when interrupted (the workers and the server stopped by its own `finally`)."""
    import asyncio

    try:
        return asyncio.run(main_async(args))
    except BenchError as e:
        console.print(f"[red]error:[/] {e}")
        return 2
    except (KeyboardInterrupt, asyncio.CancelledError):
        console.print("[red]interrupted[/]: workers and server stopped")
        return 130


def find_publication(objects: ObjectStore, task_id: str) -> str:
    """The newest publication folder of `task_id` in the object store (plain publications and
    those of dataset revisions), by the publication time its records.json gives."""
    candidates = [k for k in objects.list(f"publications/{task_id}/") if k.endswith("/publication.json")]
    for ns_key in objects.list("datasets/"):
        m = re.match(rf"^(datasets/[^/]+/[^/]+/publications/{re.escape(task_id)}/[^/]+)/publication\.json$", ns_key)
        if m:
            candidates.append(ns_key)
    if not candidates:
        raise BenchError(f"no frozen publication of task {task_id!r} in {objects.location('')} "
                         "(run `make demo` first, or name one with --publication KEY)")
    folders = [k.removesuffix("/publication.json") for k in candidates]
    return max(folders, key=lambda f: (read_publication(objects, f).published_at or "", f))


def _refs_in(doc) -> list[tuple[str, int]]:
    """Every (sha256, size) a JSON document names: BlobRefs and tree-manifest entries alike."""
    out = []
    if isinstance(doc, dict):
        sha, size = doc.get("sha256"), doc.get("size")
        if isinstance(sha, str) and SHA256.match(sha) and isinstance(size, int):
            out.append((sha, size))
        for v in doc.values():
            out += _refs_in(v)
    elif isinstance(doc, list):
        for v in doc:
            out += _refs_in(v)
    return out


def seed_var(source_objects: ObjectStore, source_store: ContentStore, folder: str, var: Path) -> dict:
    """Copy the publication folder `folder` (every file its publication.json and records.json
    list, then the two documents) into `var` as the workers' object store, and every store blob its frozen
    record reaches (the task package tree, grading, reference renders; what a JSON blob names,
    transitively) into `var/store`."""
    try:
        pub_bytes = source_objects.get(f"{folder}/publication.json")
    except ObjectMissing:
        raise BenchError(f"--publication {folder}: no {source_objects.location(folder + '/publication.json')}") from None
    dest_objects = FilesystemObjects(var)
    publication, records_bytes = json.loads(pub_bytes), source_objects.get(records_key(folder))
    for f in [*publication["files"], *json.loads(records_bytes)["files"]]:
        dest_objects.put_if_absent(f"{folder}/{f['path']}", source_objects.get(f"{folder}/{f['path']}"))
    dest_objects.put_if_absent(records_key(folder), records_bytes)
    dest_objects.put_if_absent(f"{folder}/publication.json", pub_bytes)
    dest_store = FilesystemStore(var / "store")
    frozen = json.loads(source_objects.get(f"{folder}/review/frozen-task.json"))
    todo, seen, copied = _refs_in(frozen), set(), 0
    while todo:
        sha, size = todo.pop()
        if sha in seen:
            continue
        seen.add(sha)
        data = source_store.get_bytes(source_store.ref_for(sha, size))
        dest_store.put_bytes(data)
        copied += len(data)
        if data[:1] in (b"{", b"[") and len(data) < 8 << 20:
            try:
                todo += _refs_in(json.loads(data))
            except ValueError:
                pass
    return {"publication": folder, "task_id": publication["task_id"],
            "publication_id": publication["publication_id"], "task_version": publication["task_version"],
            "blobs": len(seen), "bytes": copied}


def write_task_dir(objects: ObjectStore, folder: str, task_dir: Path) -> Path:
    """The publication's `task/` as Harbor runs it (its shell scripts executable)."""
    publication = read_publication(objects, folder)
    for rel in publication.under("task/"):
        dest = task_dir / rel.removeprefix("task/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(publication.read(rel, keep=False))
    for script in task_dir.rglob("*.sh"):
        script.chmod(0o755)
    return task_dir


def iso_seconds(text: str) -> float:
    """An ISO 8601 time (Harbor's result.json: `...Z` or an offset) as epoch seconds."""
    from datetime import datetime

    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def seconds_or_blank(v: float | None) -> str:
    """A table cell: two decimals, or nothing for a figure not measured."""
    return "" if v is None else f"{v:.2f}"


def load_registry(policy: str, trials: int) -> tuple[dict, dict[str, int]]:
    """A solver registry whose mode `load` runs `trials` attempts of one scripted policy on
    one task: the registry allows at most 64 attempts per config, so the attempts are spread
    over identical configs load-01, load-02, … (same agent, as many as needed)."""
    k = max(1, math.ceil(trials / 64))
    base, rem = divmod(trials, k)
    attempts = {f"load-{i + 1:02d}": base + (1 if i < rem else 0) for i in range(k)}
    doc = {
        "registry_version": "bench-load",
        "configs": [{"id": cid, "description": f"bench/load.py: the scripted {policy} policy",
                     "agent": policy, "attempts": n, "validated": True} for cid, n in attempts.items()],
        "modes": {"load": {"description": f"{trials} {policy} attempts", "attempts": attempts}},
    }
    return doc, attempts


# -- processes -------------------------------------------------------------------------------------


@dataclass
class Proc:
    name: str
    popen: subprocess.Popen
    log: Path

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def tail(self, n: int = 2000) -> str:
        try:
            return self.log.read_text(errors="replace")[-n:]
        except FileNotFoundError:
            return ""


class Deployment:
    """A dev server (unless an address is given) and one process per worker pool, each in its
    own session so that stopping it stops its children (Blender, sandboxes) too."""

    def __init__(self, work: Path, address: str | None, namespace: str, backend: str,
                 concurrency: dict[str, int]):
        self.work = work
        self.var = work / "var"
        self.log_dir = work / "log"
        self.given_address = address
        self.namespace = namespace
        self.backend = backend
        self.concurrency = concurrency
        self.server: Proc | None = None
        self.workers: dict[str, Proc] = {}
        self.port = None

    @property
    def address(self) -> str:
        return self.given_address or f"127.0.0.1:{self.port}"

    def _spawn(self, name: str, argv: list[str], env: dict) -> Proc:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        log = self.log_dir / f"{name}.log"
        with open(log, "ab") as out:
            popen = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, env=env,
                                     start_new_session=True, stdin=subprocess.DEVNULL)
        return Proc(name, popen, log)

    def start_server(self, timeout: float = 90.0) -> None:
        if self.given_address:
            return
        self.port = free_port()
        argv = [temporal_bin(), "server", "start-dev", "--headless", "--ip", "127.0.0.1",
                "--port", str(self.port), "--db-filename", str(self.work / "temporal.sqlite"),
                *DEV_SERVER_SQLITE, "--log-level", "warn"]
        for key, kind in SEARCH_ATTRIBUTES.items():
            argv += ["--search-attribute", f"{key}={kind}"]
        self.server = self._spawn("temporal", argv, dict(os.environ))
        deadline = time.monotonic() + timeout
        while not port_open(self.port):
            if not self.server.alive():
                raise BenchError(f"the Temporal dev server exited at start:\n{self.server.tail()}")
            if time.monotonic() > deadline:
                raise BenchError(f"the Temporal dev server did not open port {self.port} in {timeout:.0f}s")
            time.sleep(0.3)

    def start_workers(self) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("ARKEVO_STORE", "ARKEVO_OBJECTS")}
        env.update(ARKEVO_VAR=str(self.var), ARKEVO_TRIAL_BACKEND=self.backend,
                   ARKEVO_TEMPORAL_ADDRESS=self.address, ARKEVO_TEMPORAL_NAMESPACE=self.namespace,
                   # the bench's end abandons the trials in flight: no 10-minute drain
                   ARKEVO_GRACEFUL_SHUTDOWN_SEC="0", PYTHONUNBUFFERED="1")
        for pool in POOLS:
            argv = [sys.executable, "-m", "workers", pool, "--address", self.address,
                    "--namespace", self.namespace]
            if pool in self.concurrency:
                argv += ["--concurrency", str(self.concurrency[pool])]
            self.workers[pool] = self._spawn(f"worker-{pool}", argv, env)

    async def wait_ready(self, client, timeout: float = 300.0) -> None:
        """Until each worker process polls its queue (its pid in a poller identity,
        `<pid>@<host>`, as DescribeTaskQueue reports them)."""
        import asyncio

        from temporalio.api.enums.v1 import TaskQueueType
        from temporalio.api.taskqueue.v1 import TaskQueue
        from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest

        from contracts import queues

        deadline = time.monotonic() + timeout
        pending = set(POOLS)
        while pending:
            for pool in sorted(pending):
                w = self.workers[pool]
                if not w.alive():
                    raise BenchError(f"worker {pool} exited at start (log {w.log}):\n{w.tail()}")
                kind = (TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW if pool == "control"
                        else TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY)
                resp = await client.workflow_service.describe_task_queue(DescribeTaskQueueRequest(
                    namespace=self.namespace, task_queue=TaskQueue(name=queues.POOLS[pool]),
                    task_queue_type=kind))
                if any(p.identity.startswith(f"{w.pid}@") for p in resp.pollers):
                    pending.discard(pool)
            if pending and time.monotonic() > deadline:
                raise BenchError(f"workers not polling after {timeout:.0f}s: {', '.join(sorted(pending))} "
                                 f"(logs in {self.log_dir})")
            await asyncio.sleep(0.5)

    async def start(self):
        """The server (unless an address was given) and the workers; returns a client once
        every worker polls its queue."""
        from workers.client import connect

        self.start_server()
        self.start_workers()
        client = await connect(self.namespace, self.address)
        await self.wait_ready(client)
        return client

    def dead_workers(self) -> list[str]:
        return [p for p, w in self.workers.items() if not w.alive()]

    def stop(self) -> None:
        for proc in [*self.workers.values(), *([self.server] if self.server else [])]:
            _stop_group(proc.popen)


def _stop_group(popen: subprocess.Popen, grace: float = 20.0) -> None:
    if popen.poll() is not None:
        return
    try:
        os.killpg(popen.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        popen.wait(grace)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(popen.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        popen.wait(5)


# -- memory ----------------------------------------------------------------------------------------


def _status_kb(pid: int, field_name: str) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field_name + ":"):
                return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError, PermissionError, ValueError):
        return None
    return None


def _parents() -> dict[int, int]:
    """pid -> ppid of every process, from /proc/<pid>/stat."""
    out = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry.name}/stat").read_text()
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        out[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    return out


def _descendants(pid: int, parents: dict[int, int]) -> list[int]:
    children: dict[int, list[int]] = {}
    for p, pp in parents.items():
        children.setdefault(pp, []).append(p)
    out, todo = [], list(children.get(pid, []))
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


@dataclass
class RssSeries:
    """One process (or a process's descendants, summed) sampled over the run, in KiB."""
    peak_kb: int = 0
    last_kb: int = 0
    samples: int = 0
    peak_count: int = 0  # descendants: most processes at once
    peak_single_kb: int = 0  # descendants: the largest one seen
    at_mark: dict[str, int] = field(default_factory=dict)  # label -> KiB when mark() was called
    series: list[tuple[float, int]] = field(default_factory=list)

    def add(self, t: float, kb: int, count: int | None = None, single: int | None = None) -> None:
        self.last_kb = kb
        self.peak_kb = max(self.peak_kb, kb)
        self.samples += 1
        if count is not None:
            self.peak_count = max(self.peak_count, count)
        if single is not None:
            self.peak_single_kb = max(self.peak_single_kb, single)
        if not self.series or t - self.series[-1][0] >= 5.0:
            self.series.append((round(t, 1), kb))


class RssSampler:
    """A thread sampling VmRSS from /proc every `interval` seconds: each worker process itself
    (the `python -m workers <pool>` process) and, apart, the sum over its descendants (Blender,
    sandboxes, Harbor's helpers); the dev server too when the bench started it."""

    def __init__(self, procs: dict[str, int], interval: float):
        self.procs = procs
        self.interval = interval
        self.own = {name: RssSeries() for name in procs}
        self.children = {name: RssSeries() for name in procs}
        self.hwm_kb: dict[str, int | None] = {}
        self.loadavg: list[float] = []  # the machine's 1-min load average at each sample
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="rss-sampler", daemon=True)
        self.t0 = time.monotonic()

    def start(self) -> "RssSampler":
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def sample(self) -> None:
        t = time.monotonic() - self.t0
        parents = _parents()
        with self._lock:
            self.loadavg.append(os.getloadavg()[0])
            for name, pid in self.procs.items():
                kb = _status_kb(pid, "VmRSS")
                if kb is None:
                    continue
                self.own[name].add(t, kb)
                kids = [(_status_kb(p, "VmRSS") or 0) for p in _descendants(pid, parents)]
                self.children[name].add(t, sum(kids), len(kids), max(kids, default=0))

    def mark(self, label: str) -> None:
        """Remember every series' current value under `label` (e.g. the queue at its fullest)."""
        self.sample()
        with self._lock:
            for name in self.procs:
                self.own[name].at_mark[label] = self.own[name].last_kb
                self.children[name].at_mark[label] = self.children[name].last_kb

    def current_mb(self, name: str) -> float:
        return self.own[name].last_kb / 1024

    def stop(self) -> None:
        """Stop sampling; read each process's own high-water mark (VmHWM) while it still runs.
        A second call does nothing."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._thread.join()
        self.sample()
        for name, pid in self.procs.items():
            self.hwm_kb[name] = _status_kb(pid, "VmHWM")


# -- histories -------------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100); None for no values."""
    if not values:
        return None
    s = sorted(values)
    return s[max(0, math.ceil(q / 100 * len(s)) - 1)]


def summary(values: list[float]) -> dict:
    if not values:
        return {"n": 0, "p50": None, "p95": None, "max": None, "mean": None}
    return {"n": len(values), "p50": round(percentile(values, 50), 3), "p95": round(percentile(values, 95), 3),
            "max": round(max(values), 3), "mean": round(statistics.mean(values), 3)}


@dataclass
class HistoryFacts:
    """What one workflow's history says, for the figures."""
    workflow_id: str
    workflow_type: str
    events: int
    started: float | None  # epoch seconds
    closed: float | None
    close: str | None  # completed | failed | terminated | … ; None: still open
    children: list[str]
    # (queue, activity type, schedule-to-start s, attempt, start-to-close s or None) of each
    # started activity
    activities: list[tuple[str, str, float, int, float | None]]
    # (queue label, schedule-to-start s) of each started workflow task
    workflow_tasks: list[tuple[str, float]]
    queued_activities: list[tuple[str, str, float]]  # scheduled, never started: (queue, type, scheduled at)
    retries: list[tuple[str, int, str]] = field(default_factory=list)  # (type, attempt, last failure)


def history_facts(workflow_id: str, events) -> HistoryFacts:
    """Read a fetched history (temporalio.api.history.v1.HistoryEvent list)."""
    from temporalio.api.enums.v1 import EventType, TaskQueueKind

    from contracts import queues

    def ts(e) -> float:
        return e.event_time.seconds + e.event_time.nanos / 1e9

    wf_type, started, closed, close = "", None, None, None
    children, activities, wfts, queued, retries = [], [], [], [], []
    scheduled_act: dict[int, tuple[str, str, float]] = {}
    scheduled_wft: dict[int, tuple[str, float]] = {}
    started_act: dict[int, tuple[int, float]] = {}
    ends = {EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED: "activity_task_completed_event_attributes",
            EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED: "activity_task_failed_event_attributes",
            EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT: "activity_task_timed_out_event_attributes",
            EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED: "activity_task_canceled_event_attributes"}
    closes = {EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED: "completed",
              EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED: "failed",
              EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED: "terminated",
              EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED: "canceled",
              EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT: "timed_out",
              EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW: "continued_as_new"}
    for e in events:
        t = e.event_type
        if t == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
            started = ts(e)
            wf_type = e.workflow_execution_started_event_attributes.workflow_type.name
        elif t in closes:
            closed, close = ts(e), closes[t]
        elif t == EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED:
            children.append(e.child_workflow_execution_started_event_attributes.workflow_execution.workflow_id)
        elif t == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            a = e.activity_task_scheduled_event_attributes
            scheduled_act[e.event_id] = (a.task_queue.name, a.activity_type.name, ts(e))
        elif t == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            a = e.activity_task_started_event_attributes
            queue, kind, at = scheduled_act.pop(a.scheduled_event_id)
            started_act[a.scheduled_event_id] = (len(activities), ts(e))
            activities.append((queue, kind, ts(e) - at, a.attempt, None))
            if a.attempt > 1:
                retries.append((kind, a.attempt, a.last_failure.message[:300]))
        elif t in ends:
            sid = getattr(e, ends[t]).scheduled_event_id
            if sid in started_act:
                i, at = started_act.pop(sid)
                activities[i] = (*activities[i][:4], ts(e) - at)
        elif t == EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED:
            a = e.workflow_task_scheduled_event_attributes
            sticky = a.task_queue.kind == TaskQueueKind.TASK_QUEUE_KIND_STICKY
            scheduled_wft[e.event_id] = (f"{queues.CONTROL} sticky" if sticky else a.task_queue.name, ts(e))
        elif t == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
            a = e.workflow_task_started_event_attributes
            if a.scheduled_event_id in scheduled_wft:
                queue, at = scheduled_wft.pop(a.scheduled_event_id)
                wfts.append((queue, ts(e) - at))
    # An activity with no Started event either waits in its queue or runs now: its Started
    # event is written when it ends (Temporal records a running activity's start lazily).
    queued = [(q, k, at) for q, k, at in scheduled_act.values()]
    return HistoryFacts(workflow_id, wf_type, len(events), started, closed, close, children,
                        activities, wfts, queued, retries)
