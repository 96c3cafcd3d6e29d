"""How `make test` splits its session (tests/background/runs.py): which items leave the
foreground, and a run that waits for another starts only when that one has ended, with the
session's environment of before any test ran."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from types import SimpleNamespace

import pytest

from tests.background import runs
from tests.background.runs import BackgroundRun, Suite, split

JOIN = "tests/background/test_background_suites.py::test_suite_passed_beside_the_rest"


def items(*nodeids: str) -> list:
    return [SimpleNamespace(nodeid=n) for n in nodeids]


@pytest.fixture(autouse=True)
def main_session(monkeypatch):
    monkeypatch.setenv(runs.CHILD_ENV, "1")


def test_a_joined_suite_leaves_the_foreground_with_exactly_its_selected_items():
    selected = items("tests/integration/test_scene_kept.py::test_x",
                     "tests/integration/test_dataset_production.py::test_a",
                     "tests/unit/test_store.py::test_y",
                     f"{JOIN}[long-runs]")
    kept, background, foreground = split(selected)
    assert background == {"long-runs": ["tests/integration/test_dataset_production.py::test_a"]}
    assert foreground == set()
    # unit tests first, the joiner last
    assert [i.nodeid for i in kept] == ["tests/unit/test_store.py::test_y",
                                        "tests/integration/test_scene_kept.py::test_x", f"{JOIN}[long-runs]"]


def test_without_its_joiner_or_alone_a_suite_stays_in_the_foreground(monkeypatch):
    no_joiner = items("tests/integration/test_dataset_production.py::test_a", "tests/unit/test_store.py::test_y")
    assert split(no_joiner)[1:] == ({}, {"long-runs"})
    alone = items("tests/chaos/test_server_killed.py::test_z", f"{JOIN}[chaos]")
    assert split(alone)[1:] == ({}, {"chaos"})
    monkeypatch.setenv(runs.CHILD_ENV, "0")
    everything = items("tests/chaos/test_server_killed.py::test_z", "tests/unit/test_store.py::test_y",
                       f"{JOIN}[chaos]")
    assert split(everything)[1:] == ({}, {"chaos"})


@dataclass(frozen=True)
class Sleeper(Suite):
    seconds: float = 0.0

    def argv(self, folder, targets):
        return [sys.executable, "-c", f"import time; time.sleep({self.seconds}); print('{self.name} done')"]


def test_a_run_after_another_starts_when_that_one_ends(tmp_path, monkeypatch):
    monkeypatch.setattr(runs, "LOGS", tmp_path)
    first = BackgroundRun(Sleeper("first", (), seconds=1.5)).start()
    second = BackgroundRun(Sleeper("second", (), after="first")).start_after(first)
    time.sleep(0.5)
    assert second.proc is None  # still waiting for the first
    rc, out = second.wait(timeout=60)
    assert rc == 0 and "second done" in out
    assert first.proc.poll() == 0


@dataclass(frozen=True)
class EnvPrinter(Suite):
    def argv(self, folder, targets):
        return [sys.executable, "-c", "import os; print('store=' + os.environ.get('ARKEVO_STORE', 'unset'))"]


def test_a_deferred_run_gets_the_environment_of_when_it_was_made_not_of_when_it_starts(tmp_path, monkeypatch):
    """A run that waits for another starts while foreground tests run: one of them may have
    monkeypatched os.environ (an S3 store on a bucket it deletes) at that moment."""
    monkeypatch.setattr(runs, "LOGS", tmp_path)
    monkeypatch.delenv("ARKEVO_STORE", raising=False)
    first = BackgroundRun(Sleeper("first", (), seconds=1.0)).start()
    second = BackgroundRun(EnvPrinter("second", (), after="first")).start_after(first)
    monkeypatch.setenv("ARKEVO_STORE", "s3://a-foreground-tests-bucket/store")  # a test runs meanwhile
    rc, out = second.wait(timeout=60)
    assert second.proc is not None and rc == 0
    assert "store=unset" in out, out


def test_a_run_still_waiting_when_the_session_ends_never_starts(tmp_path, monkeypatch):
    monkeypatch.setattr(runs, "LOGS", tmp_path)
    first = BackgroundRun(Sleeper("first", (), seconds=1.0)).start()
    second = BackgroundRun(Sleeper("second", (), after="first")).start_after(first)
    second.stop()  # the session ends in reverse order: the waiting run first
    first.stop()
    second.waiter.join(timeout=10)
    assert second.proc is None
    assert "not started" in (tmp_path / "second.log").read_text()


def test_giving_way_lowers_the_foreground_and_what_it_starts_not_a_run_started_before():
    """give_way() in a process of its own: a process its thread starts after it runs at
    FOREGROUND_NICE more; one a thread started before it starts (a deferred run) does not."""
    code = """
import os, subprocess, sys, threading
from tests.background.runs import give_way
nice = [sys.executable, "-c", "import os; print(os.nice(0))"]
go, seen = threading.Event(), {}
def deferred_run():
    go.wait()
    seen["run"] = int(subprocess.check_output(nice))
waiter = threading.Thread(target=deferred_run)
waiter.start()
give_way()
seen["foreground"] = int(subprocess.check_output(nice))
go.set()
waiter.join()
print(seen["run"], seen["foreground"])
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         cwd=runs.ROOT, check=True).stdout.split()
    base = os.nice(0)
    assert [int(v) for v in out] == [base, min(base + runs.FOREGROUND_NICE, 19)]
