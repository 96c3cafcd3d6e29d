"""The chaos and orchestration suites and the three lanes that follow them, run beside
the rest of `make test` (runs.py says why): each passes here when its own pytest process
passed, and fails with that process's output otherwise. Where the suite's tests ran in this
session's foreground there is nothing to join."""

from __future__ import annotations

import re

import pytest


@pytest.mark.parametrize("name", ["chaos", "orchestration", "long-runs", "end-to-end", "sandboxed-trials"])
def test_suite_passed_beside_the_rest(background_run, name):
    run = background_run(name)
    if run is None:
        pytest.skip(f"{name} ran in this session's foreground, test by test")
    rc, out = run.wait(timeout=1500)
    summary = [line for line in out.splitlines() if re.search(r"\d+ (passed|failed|error)", line)]
    assert rc == 0, f"{name} (its own pytest, log {run.log}) exited {rc}:\n{out[-8000:]}"
    print("\n".join(line for line in out.splitlines() if line.startswith("chaos ")) + "\n"
          + (summary[-1] if summary else ""))
