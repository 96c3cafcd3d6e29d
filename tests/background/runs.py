"""Suites that mostly wait run beside the rest of `make test`.

`make test` has 15 minutes on 2 cores. Three parts of it spend most of their time waiting, not
computing: the deploy test (image layers, Docker, a heartbeat timeout after the kill), the
chaos tests (heartbeat timeouts, a restarted server) and the orchestration tests (workflows on
a dev server with mocked activities). Run one after another they would push the suite past its
limit; run as subprocesses from the moment collection ends, beside the CPU-bound suites, they
cost little more than their CPU.

So, when the whole suite (or any selection holding more than them) is collected, the root
conftest takes the chaos and orchestration items out of the foreground session and runs each
folder as its own `pytest` process, and starts `python -m deploy.deploy_test` where a Docker
engine answers. The tests in tests/background/ join them at the end of the session: one test
per background run, which fails with the run's output when the run did not pass. A folder
selected on its own (`pytest tests/chaos`) runs in the foreground as usual; so does a joiner
run alone, which then starts its run itself. ARKEVO_TEST_BACKGROUND=0 keeps everything in the
foreground. Logs: var/test-background/<name>.log.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "var" / "test-background"
JOINERS = "tests/background/"
FIRST = ("tests/unit/",)  # CPU-bound and quick: they run while the background starts
CHILD_ENV = "ARKEVO_TEST_BACKGROUND"  # "0": all in the foreground; "child": a background run


@dataclass(frozen=True)
class Suite:
    name: str
    folder: str  # the items it takes out of the foreground ("" for the deploy test)

    def argv(self, folder: Path) -> list[str]:
        if self.name == "deploy":
            return [sys.executable, "-m", "deploy.deploy_test", "--summary", str(folder / "summary.json")]
        return [sys.executable, "-m", "pytest", self.folder, "-q", "-s", "-rfE", "-p", "no:cacheprovider"]


SUITES = {s.name: s for s in (Suite("deploy", ""), Suite("chaos", "tests/chaos/"),
                              Suite("orchestration", "tests/orchestration/"))}


class BackgroundRun:
    """One suite as a subprocess; its output in var/test-background/<name>.log."""

    def __init__(self, suite: Suite):
        self.suite = suite
        self.folder = LOGS / suite.name
        self.folder.mkdir(parents=True, exist_ok=True)
        self.log = LOGS / f"{suite.name}.log"
        self.summary = self.folder / "summary.json"
        self.proc: subprocess.Popen | None = None
        self.started = 0.0

    def start(self) -> "BackgroundRun":
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(
                self.suite.argv(self.folder), cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True,
                env={**os.environ, "PYTHONUNBUFFERED": "1", CHILD_ENV: "child"})
        self.started = time.monotonic()
        return self

    def wait(self, timeout: float) -> tuple[int, str]:
        assert self.proc is not None
        try:
            rc = self.proc.wait(timeout=max(1.0, timeout - (time.monotonic() - self.started)))
        except subprocess.TimeoutExpired:
            self.stop()
            rc = -1
        return rc, self.log.read_text(errors="replace")

    def stop(self) -> None:
        """SIGTERM (the deploy test then takes its stack down; pytest ends its fixtures),
        SIGKILL after a grace."""
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def mode() -> str:
    return os.environ.get(CHILD_ENV, "1")


def joined(items: list) -> set[str]:
    """The background runs whose joiner test is selected (its id names the suite)."""
    return {name for name in SUITES for i in items
            if i.nodeid.startswith(JOINERS) and (f"[{name}]" in i.nodeid or f"test_{name}_" in i.nodeid)}


def split(items: list) -> tuple[list, list[str], set[str]]:
    """(the foreground items, in order; the suites to run in the background; the suites whose
    own tests stay in the foreground). A suite goes to the background only when the selection
    holds more than it and its joiner is selected too."""
    own = {name: [i for i in items if suite.folder and i.nodeid.startswith(suite.folder)]
           for name, suite in SUITES.items()}
    rest = [i for i in items if not i.nodeid.startswith(JOINERS)]
    background = [] if mode() in ("0", "child") else [
        name for name in joined(items) if own[name] and len(own[name]) < len(rest)]
    moved = {id(i) for name in background for i in own[name]}
    foreground = {name for name, mine in own.items() if mine and name not in background}

    def rank(item) -> int:
        if item.nodeid.startswith(JOINERS):
            return 2
        return 0 if item.nodeid.startswith(FIRST) else 1
    return sorted((i for i in items if id(i) not in moved), key=rank), background, foreground
