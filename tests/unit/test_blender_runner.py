"""The one bpy runner's failure classification (blender/runner.py), unisolated: the scripts
here are plain Python, which is what the runner starts (the sandboxed path is covered by
tests/adversarial: test_build_sandbox, test_evidence_sandbox, test_calibration_sandbox)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from blender import runner
from blender.runner import BlenderJob, BlenderProcessError, DeliveryBrokeBlender, ScriptFailed
from sandbox.script_run import LOCAL


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


async def test_a_run_that_succeeds_returns_its_exit_and_log(tmp_path):
    script = write(tmp_path / "ok.py", "import sys\nprint('hello', sys.argv[1:])\n")
    run = await runner.run(script, ["a"], LOCAL, timeout=30, log=tmp_path / "ok.log")
    assert run.ok and run.returncode == 0 and "hello ['a']" in run.log_tail


async def test_a_traceback_through_an_authored_script_is_the_authors(tmp_path):
    authored = write(tmp_path / "solve.py", "def legs():\n    return 4 / 0\nlegs()\n")
    driver = write(tmp_path / "apply.py", "import runpy, sys\nrunpy.run_path(sys.argv[1])\n")
    with pytest.raises(ScriptFailed) as failed:
        await runner.run(driver, [str(authored)], LOCAL, timeout=30, authored={str(authored): authored})
    assert failed.value.kind == "author"
    assert failed.value.problems == [(authored, "ZeroDivisionError: division by zero")]
    assert "line 2, in legs" in failed.value.log_tail


async def test_an_author_error_the_script_reports_itself_names_the_last_line(tmp_path):
    builder = write(tmp_path / "build.py", "import sys\nprint('builder: error: cannot open x.blend:\\n"
                                           "Error: File format is not supported', file=sys.stderr)\nsys.exit(2)\n")
    reference = tmp_path / "x.blend"
    with pytest.raises(ScriptFailed) as failed:
        await runner.run(builder, [], LOCAL, timeout=30, authored={str(reference): reference},
                         marker="builder: error:")
    assert failed.value.problems == [(reference, "Error: File format is not supported")]


async def test_a_crash_on_a_delivery_is_the_solvers_and_elsewhere_infrastructure(tmp_path):
    crash = write(tmp_path / "render.py", "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n")
    with pytest.raises(DeliveryBrokeBlender) as broke:
        await runner.run(crash, [], LOCAL, timeout=30, delivery=True)
    assert broke.value.kind == "solver" and "exited with -11 on this delivery" in str(broke.value)
    with pytest.raises(BlenderProcessError) as infra:
        await runner.run(crash, [], LOCAL, timeout=30)
    assert infra.value.kind == "infra" and infra.value.returncode == -11
    assert str(infra.value).splitlines()[0] == "render.py exited with -11"


async def test_a_hang_is_killed_at_the_timeout_with_everything_it_started(tmp_path):
    pid_file = tmp_path / "child.pid"
    hang = write(tmp_path / "hang.py", "import pathlib, subprocess, sys, time\n"
                 "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
                 f"pathlib.Path({str(pid_file)!r}).write_text(str(child.pid))\n"
                 "time.sleep(600)\n")
    with pytest.raises(BlenderProcessError) as hung:
        await runner.run(hang, [], LOCAL, timeout=5)
    assert hung.value.returncode is None and "still running after 5s; killed" in str(hung.value)
    child = int(pid_file.read_text())
    # The SIGKILL went to its whole process group; the kernel delivers it to the child a moment
    # later, so wait for the event (generous deadline: only a child that survives fails).
    for _ in range(300):
        if _dead(child):
            break
        await asyncio.sleep(0.1)
    assert _dead(child)


def _dead(pid: int) -> bool:
    """Gone, or a zombie that init has not reaped yet."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


def test_job_paths_are_host_paths_unisolated_and_sandbox_paths_otherwise(tmp_path):
    from sandbox.isolation.settings import SandboxSettings
    blend = write(tmp_path / "a.blend", "x")
    local = BlenderJob(LOCAL)
    assert local.input(blend, "/workspace/a.blend") == str(blend) and local.inputs == {}
    sandboxed = BlenderJob(SandboxSettings())
    assert sandboxed.input(blend, "/workspace/a.blend") == "/workspace/a.blend"
    assert sandboxed.input(tmp_path / "missing.blend", "/workspace/m.blend") == "/workspace/m.blend"
    assert sandboxed.output(tmp_path / "out.blend", "/workspace/out/r.blend") == "/workspace/out/r.blend"
    assert sandboxed.inputs == {"/workspace/a.blend": blend}  # a missing file is missing in there too
    assert sandboxed.outputs == {"/workspace/out/r.blend": tmp_path / "out.blend"}


def test_run_blocking_works_under_a_running_loop_and_without_one(tmp_path):
    script = write(tmp_path / "ok.py", "print('fine')\n")
    assert BlenderJob(LOCAL).run_blocking(script, [], timeout=30).ok

    async def inside() -> bool:
        return BlenderJob(LOCAL).run_blocking(script, [], timeout=30).ok
    assert asyncio.run(inside())


async def test_a_reproducible_job_runs_its_script_under_the_frozen_clock(tmp_path):
    """The script sees the frozen instant (wall and monotonic clock alike), whatever the host's
    clock says; an ordinary job sees the host's."""
    script = write(tmp_path / "clock.py", "import time\nprint(time.time(), time.monotonic())\n")
    frozen = await BlenderJob(LOCAL, reproducible=True).run(script, [], timeout=30)
    assert float(frozen.log_tail.split()[0]) == 946684800.0  # 2000-01-01T00:00:00Z (runner.FROZEN_AT)
    later = await BlenderJob(LOCAL, reproducible=True).run(script, [], timeout=30)
    assert later.log_tail.split()[1] == frozen.log_tail.split()[1]  # not a moving clock
    free = await BlenderJob(LOCAL).run(script, [], timeout=30)
    assert float(free.log_tail.split()[0]) > 1.7e9


async def test_without_libfaketime_a_reproducible_job_refuses_to_run(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "FAKETIME_LIBRARY", str(tmp_path / "none" / "libfaketime.so.1"))
    script = write(tmp_path / "never.py", "raise SystemExit('must not run')\n")
    with pytest.raises(runner.FrozenClockUnavailable, match="install Debian's libfaketime"):
        await BlenderJob(LOCAL, reproducible=True).run(script, [], timeout=30)
