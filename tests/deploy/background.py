"""The deploy test runs beside the rest of the suite.

`make deploy-test` takes minutes, most of them waiting — on image layers, on Docker, on a
heartbeat timeout after the kill — not computing; run after the suite, it alone would push
`make test` past its 15 minutes on 2 cores. So the root conftest starts it as a subprocess when
collection ends (when it was collected and a Docker engine answers), orders the light suites
(unit, orchestration) first to run beside it, and runs its test last: the test only joins the
subprocess and checks what it wrote. Run alone, the test starts it itself.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEPLOY_TESTS = "tests/deploy/"
FIRST = ("tests/unit/", "tests/orchestration/")  # light: they run beside the deploy test


class DeployRun:
    """`python -m deploy.deploy_test` in the background, its output in `log`."""

    def __init__(self, folder: Path):
        folder.mkdir(parents=True, exist_ok=True)
        self.summary = folder / "summary.json"
        self.log = folder / "deploy-test.log"
        self.proc: subprocess.Popen | None = None
        self.started = 0.0

    def start(self) -> "DeployRun":
        out = open(self.log, "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "deploy.deploy_test", "--summary", str(self.summary)],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        out.close()
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
        """SIGTERM (the deploy test then takes its stack down), SIGKILL after a grace."""
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def order_items(items: list) -> list:
    """Light suites first, the deploy tests last, the rest in between (stable)."""
    def rank(item) -> int:
        if item.nodeid.startswith(DEPLOY_TESTS):
            return 3
        return next((i for i, prefix in enumerate(FIRST) if item.nodeid.startswith(prefix)), 2)
    return sorted(items, key=rank)
