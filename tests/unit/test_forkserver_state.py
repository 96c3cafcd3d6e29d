"""The fork servers' temp folders and logs (sandbox/isolation/forkserver.py): those of a worker
that no longer runs are removed when a fork server starts, whichever kind of server left them
(the default, the bare one, one started under a preload); a live worker's are kept."""

from __future__ import annotations

import os
import subprocess
import sys

from sandbox.isolation import forkserver


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_dead_workers_folders_of_every_kind_go_and_a_live_ones_stay(tmp_path):
    dead, live = _dead_pid(), os.getpid()
    names = [f"tmp-{pid}{kind}" for pid in (dead, live) for kind in ("", "-bare", "-preload2")]
    for name in names:
        (tmp_path / name).mkdir()
        (tmp_path / f"{name}.log").write_text("log\n")
    forkserver._remove_stale(tmp_path)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted([n for n in names if n.startswith(f"tmp-{live}")] +
                          [f"{n}.log" for n in names if n.startswith(f"tmp-{live}")])


def test_a_preload_server_has_a_folder_of_its_own(tmp_path, monkeypatch):
    monkeypatch.setattr(forkserver, "_SERVERS", {})
    plain = forkserver.fork_server("/venv/bin/python3", home="/home/sandbox")
    frozen = forkserver.fork_server("/venv/bin/python3", home="/home/sandbox", preload={"TZ": "UTC"})
    assert forkserver.fork_server("/venv/bin/python3", home="/home/sandbox", preload={}) is plain
    assert frozen is not plain and frozen.preload == {"TZ": "UTC"}
    assert frozen.tmp_dir != plain.tmp_dir and frozen.tmp_dir.name.startswith(f"tmp-{os.getpid()}-preload")


def test_a_script_runs_fork_server_starts_only_at_the_third_that_asks(tmp_path):
    """A short command's two script runs start no fork server (each ~1.5 CPU-s it would not use);
    the third asks for it and starts it (this one runs cold: the server is not ready yet)."""
    from sandbox.script_run import SCRIPT_RUNS_BEFORE_A_FORK_SERVER as after

    server = forkserver.ForkServer(sys.executable, home=str(tmp_path), tmp_dir=tmp_path / "fs" / "tmp-x")
    try:
        assert [server.channel(after) for _ in range(after)] == [None] * after
        assert server.counts == {"cold": after} and server.pid is None
        server.channel(after)
        assert server.counts["started"] == 1 and server.pid is not None
    finally:
        server.close()
