"""Suites that mostly wait run beside the rest of `make test`.

`make test` has 15 minutes on 2 cores. Three parts of it spend most of their time waiting, not
computing: the deploy test (image layers, Docker, a heartbeat timeout after the kill), the
chaos tests (heartbeat timeouts, a restarted server) and the orchestration tests (workflows on
a dev server with mocked activities). Run one after another they would push the suite past its
limit; run as subprocesses from the moment collection ends, beside the CPU-bound suites, they
cost little more than their CPU. Two lanes of long end-to-end runs follow them, so that the
second core never idles while the foreground runs one test at a time: `long-runs` (a dataset
revision with a worker kill, every bundled seed's calibration samples probed, the calibration
step of two seeds under three profiles, the evidence renders' tests, authors' broken seeds
refused fast, `arkevo seed calibrate`, moved here from sandboxed trials once mutation testing
stopped at the first failed core criterion and that lane ended last) starts when the chaos suite ends, two minutes or so in; `end-to-end` (a seed through all seven stages, the shared model budget across two
worker processes, model authoring, a seed family's instances through DatasetProduction) starts
when the orchestration suite ends, while the deploy test
mostly waits on downloads. (Long runs followed the deploy test until the first run on a fresh
machine showed what that costs: with no image cached, the deploy test took 458 s, long runs
started only then and ended last, 3 minutes after the foreground; see docs/performance.md.)
`sandboxed-trials` (trials that crash, hang or time out their Blender
host, and the agents' MCP sessions: much of it waiting on timeouts; then the sandbox's
adversarial tests, the review site in Chromium, a gameable grader refused at review, the
difficulty bands on their own stack, the trial paths and the authoring
guide's walk-through, moved here from end to end, which ended last) starts when the chaos suite ends. Each starts at once where the run it follows does not run.

So, when the whole suite (or any selection holding more than them) is collected, the root
conftest takes each suite's items out of the foreground session and runs them as their own
`pytest` process, and starts `python -m deploy.deploy_test` where a Docker engine answers. The tests in tests/background/ join them at the end of the session: one test
per background run, which fails with the run's output when the run did not pass. A folder
selected on its own (`pytest tests/chaos`) runs in the foreground as usual; so does a joiner
run alone, which then starts its run itself. ARKEVO_TEST_BACKGROUND=0 keeps everything in the
foreground. Logs: var/test-background/<name>.log.

The foreground gives way: once it has started the runs, its own thread (and so every process
its tests start) drops to FOREGROUND_NICE. Its tests end minutes before the two lanes that end
last (long runs, end to end), which each run one test at a time; on a saturated 2-core machine
the scheduler now gives those lanes the larger share while they compete, and the foreground takes
up the cores they leave. The runs keep the priority they started with (their waiter threads are
started before the drop). Only the order in which CPU is handed out changes, never what runs.
Each run also gets the session's environment as collection left it: a run that starts later, when
the run before it ends, never inherits what a foreground test has monkeypatched meanwhile.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "var" / "test-background"
JOINERS = "tests/background/"
FIRST = ("tests/unit/",)  # CPU-bound and quick: they run while the background starts
CHILD_ENV = "ARKEVO_TEST_BACKGROUND"  # "0": all in the foreground; "child": a background run
SLOT_PREFIX_ENV = "ARKEVO_TEST_SLOT_PREFIX"  # tests/adversarial/sandbox_helpers.py
FOREGROUND_NICE = 4  # CFS weight 423 against 1024: ~30 % of a core it shares with one run


def give_way() -> None:
    """The calling thread (the foreground's) and what it starts from now on, at FOREGROUND_NICE."""
    os.nice(FOREGROUND_NICE)


def slot_prefix(suite: str) -> str:
    """A background lane's own sandbox slot users (arkevo-<lane initials>-N), apart from the
    foreground's arkevo-test-N: lanes run sandboxes at the same time."""
    return "arkevo-" + "".join(word[0] for word in suite.split("-")) + "-"


@dataclass(frozen=True)
class Suite:
    name: str
    paths: tuple[str, ...]  # the items it takes out of the foreground (none for the deploy test)
    after: str = ""  # a suite whose background run it waits for, where that one runs

    def owns(self, item) -> bool:
        return item.nodeid.startswith(self.paths) if self.paths else False

    def argv(self, folder: Path, targets: list[str]) -> list[str]:
        if self.name == "deploy":
            return [sys.executable, "-m", "deploy.deploy_test", "--summary", str(folder / "summary.json")]
        return [sys.executable, "-m", "pytest", *(targets or self.paths), "-q", "-s", "-rfE", "-p", "no:cacheprovider",
                "--durations=5"]


SUITES = {s.name: s for s in (
    Suite("deploy", ()),
    Suite("chaos", ("tests/chaos/",)),
    Suite("orchestration", ("tests/orchestration/",)),
    Suite("long-runs", ("tests/integration/test_dataset_production.py",
                        "tests/integration/test_blender_calibration.py",
                        "tests/integration/test_calibration_step.py", "tests/integration/test_evidence.py",
                        "tests/integration/test_evidence_render_truth.py",
                        "tests/integration/test_evidence_part_pixels.py", "tests/integration/test_bad_input.py",
                        "tests/integration/test_seed_calibrate.py"),
          after="chaos"),
    Suite("end-to-end", ("tests/integration/test_task_production.py",
                         "tests/integration/test_model_retry_and_budget.py",
                         "tests/integration/test_model_authoring.py",
                         "tests/integration/test_seed_family_production.py"), after="orchestration"),
    Suite("sandboxed-trials", ("tests/integration/test_trial_failures.py",
                               "tests/integration/test_agents.py", "tests/adversarial/",
                               "tests/browser/", "tests/integration/test_gameable_grader.py",
                               "tests/integration/test_difficulty_bands_real.py", "tests/integration/test_trial_paths.py",
                               "tests/integration/test_seed_walkthrough.py"),
          after="chaos"),
)}


class BackgroundRun:
    """One suite as a subprocess; its output in var/test-background/<name>.log. `targets`: the
    node ids it runs (the items the session took out of its foreground); all of its paths
    when none are given."""

    def __init__(self, suite: Suite, targets: list[str] | None = None):
        self.suite = suite
        self.targets = list(targets or [])
        self.folder = LOGS / suite.name
        self.folder.mkdir(parents=True, exist_ok=True)
        self.log = LOGS / f"{suite.name}.log"
        self.summary = self.folder / "summary.json"
        self.proc: subprocess.Popen | None = None
        self.started = 0.0
        self.waiter: threading.Thread | None = None
        self.cancelled = False
        self.lock = threading.Lock()  # a deferred start never races a stop
        # The session's environment as it is now, before any test runs: a deferred start fires
        # while foreground tests run, and one of them may have monkeypatched os.environ (an S3
        # store and its credentials) for the few seconds its run would otherwise inherit.
        self.env = {**os.environ, "PYTHONUNBUFFERED": "1", CHILD_ENV: "child",
                    SLOT_PREFIX_ENV: slot_prefix(suite.name)}

    def start_after(self, first: "BackgroundRun | None") -> "BackgroundRun":
        """Starts when `first` has ended (now when there is none)."""
        if first is None:
            return self.start()
        self.started = time.monotonic()

        def when_done():
            if first.waiter is not None:
                first.waiter.join()
            if first.proc is not None:
                first.proc.wait()
            self.start()
        self.waiter = threading.Thread(target=when_done, name=f"after-{first.suite.name}", daemon=True)
        self.waiter.start()
        return self

    def start(self) -> "BackgroundRun":
        with self.lock, open(self.log, "wb") as out:
            if self.cancelled:
                out.write(b"not started: the session ended first\n")
                return self
            self.proc = subprocess.Popen(
                self.suite.argv(self.folder, self.targets), cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True, env=self.env)
        self.started = self.started or time.monotonic()
        return self

    def wait(self, timeout: float) -> tuple[int, str]:
        """(exit code, log); the timeout counts from when the run was asked to start."""
        deadline = self.started + timeout
        if self.waiter is not None:
            self.waiter.join(timeout=max(1.0, deadline - time.monotonic()))
        if self.proc is None:
            self.stop()
            return -1, f"{self.suite.name}: did not start before its timeout ({timeout:.0f} s)"
        try:
            rc = self.proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.stop()
            rc = -1
        return rc, self.log.read_text(errors="replace")

    def stop(self) -> None:
        """SIGTERM (the deploy test then takes its stack down; pytest ends its fixtures),
        SIGKILL after a grace."""
        with self.lock:
            self.cancelled = True
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


def split(items: list) -> tuple[list, dict[str, list[str]], set[str]]:
    """(the foreground items, in order; the suites to run in the background, each with the node
    ids it takes; the suites whose own tests stay in the foreground). A suite goes to the
    background only when the selection holds more than it and its joiner is selected too."""
    own = {name: [i for i in items if suite.owns(i)] for name, suite in SUITES.items()}
    rest = [i for i in items if not i.nodeid.startswith(JOINERS)]
    background = [] if mode() in ("0", "child") else [
        name for name in joined(items) if own[name] and len(own[name]) < len(rest)]
    moved = {id(i) for name in background for i in own[name]}
    foreground = {name for name, mine in own.items() if mine and name not in background}

    def rank(item) -> int:
        if item.nodeid.startswith(JOINERS):
            return 2
        return 0 if item.nodeid.startswith(FIRST) else 1
    kept = sorted((i for i in items if id(i) not in moved), key=rank)
    return kept, {name: [i.nodeid for i in own[name]] for name in background}, foreground
