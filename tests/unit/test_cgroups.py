"""Per-trial cgroups (sandbox/isolation/cgroups.py) on v1 and v2.

This host runs cgroup v1 (no cgroup2 with memory or pids), so v2 is exercised on a fake tree:
plain folders and files standing in for the kernel's, reached through `cgroups.HOST` (a fake
mountinfo and /proc/self/cgroup). One test at the end uses the real kernel, whichever version
it offers.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
from pathlib import Path

import pytest

from sandbox.isolation import cgroups
from sandbox.isolation.cgroups import CgroupError, CgroupHost, TrialCgroup

V2_MOUNT = "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate"
V2_UNIFIED = "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw"
V1_MOUNTS = [
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755",
    "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct",
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory",
    "37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer",
    "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids",
]
V1_CPU_ONLY = V1_MOUNTS[:2]
SERVICE = "/system.slice/worker.service"
GiB = 1 << 30


def fake_host(tmp_path, monkeypatch, mountinfo: list[str], proc_cgroup: list[str]) -> Path:
    """Point cgroups at a fake host; returns the folder standing for `/`."""
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    (tmp_path / "mountinfo").write_text("".join(line + "\n" for line in mountinfo))
    (tmp_path / "cgroup").write_text("".join(line + "\n" for line in proc_cgroup))
    monkeypatch.setattr(cgroups, "HOST", CgroupHost(mountinfo=tmp_path / "mountinfo",
                                                    proc_cgroup=tmp_path / "cgroup", root=root))
    return root


def v2_group(directory: Path, controllers: str = "cpuset cpu io memory pids", procs: str = "",
             root_group: bool = False) -> Path:
    """A v2 group as the kernel shows it before we touch it."""
    directory.mkdir(parents=True, exist_ok=True)
    files = {"cgroup.controllers": controllers + "\n", "cgroup.subtree_control": "",
             "cgroup.procs": procs}
    if not root_group:
        files["cgroup.type"] = "domain\n"
    for name, text in files.items():
        (directory / name).write_text(text)
    return directory


@pytest.fixture
def v2_host(tmp_path, monkeypatch) -> Path:
    """A cgroup2-only host whose worker runs in a delegated service group; returns that group."""
    root = fake_host(tmp_path, monkeypatch, [V2_MOUNT], [f"0::{SERVICE}"])
    return v2_group(root / "sys/fs/cgroup" / SERVICE.lstrip("/"), procs="111\n222\n")


@pytest.fixture
def v1_host(tmp_path, monkeypatch) -> Path:
    """A v1-only host (cpu and cpuacct mounted together); returns the folder standing for `/`."""
    root = fake_host(tmp_path, monkeypatch, V1_MOUNTS,
                     ["5:pids:/docker/abc", "4:memory:/docker/abc", "3:freezer:/",
                      "2:cpu,cpuacct:/docker/abc", "0::/"])
    for name in ("cpu,cpuacct", "memory", "freezer", "pids"):
        (root / "sys/fs/cgroup" / name).mkdir(parents=True)
    return root


def make_trial(name: str = "arkevo-slot-0--t", **kwargs) -> TrialCgroup:
    trial = TrialCgroup(name, memory_bytes=kwargs.pop("memory_bytes", GiB),
                        pids_max=kwargs.pop("pids_max", 256), **kwargs)
    trial.create()
    return trial


def plain_rmdir(monkeypatch) -> list[Path]:
    """rmdir that, like cgroupfs, removes a group holding only interface files; records order."""
    removed: list[Path] = []

    def rmdir(path: Path) -> None:
        removed.append(path)
        for entry in path.iterdir():
            if entry.is_dir():
                raise OSError(39, "Directory not empty", str(path))
        shutil.rmtree(path)

    monkeypatch.setattr(Path, "rmdir", rmdir)
    return removed


# -- detection -------------------------------------------------------------------------------


def test_v1_only_host_uses_v1_under_the_workers_own_groups(v1_host):
    assert cgroups.version() == 1 and cgroups.check() is None
    mount = v1_host / "sys/fs/cgroup"
    assert cgroups.parent_dirs() == {
        "memory": mount / "memory/docker/abc/arkevo-sandbox",
        "pids": mount / "pids/docker/abc/arkevo-sandbox",
        "freezer": mount / "freezer/arkevo-sandbox",
        "cpu": mount / "cpu,cpuacct/docker/abc/arkevo-sandbox",
        "cpuacct": mount / "cpu,cpuacct/docker/abc/arkevo-sandbox",
    }


def test_v2_only_host_uses_the_workers_group(v2_host):
    assert cgroups.version() == 2 and cgroups.check() is None
    assert cgroups.v2_base() == v2_host
    assert cgroups.parent_dirs() == {c: v2_host / "arkevo-sandbox" for c in ("memory", "pids", "cpu")}


def test_hybrid_host_prefers_v1_when_it_holds_memory_and_pids(tmp_path, monkeypatch):
    root = fake_host(tmp_path, monkeypatch, V1_MOUNTS + [V2_UNIFIED],
                     ["4:memory:/", "5:pids:/", "0::/"])
    for name in ("memory", "pids"):
        (root / "sys/fs/cgroup" / name).mkdir(parents=True)
    v2_group(root / "sys/fs/cgroup/unified", controllers="hugetlb", root_group=True)
    assert cgroups.version() == 1 and cgroups.check() is None


def test_hybrid_host_uses_v2_when_v1_lacks_memory_or_pids(tmp_path, monkeypatch):
    root = fake_host(tmp_path, monkeypatch, V1_CPU_ONLY + [V2_UNIFIED], ["2:cpu,cpuacct:/", "0::/"])
    unified = v2_group(root / "sys/fs/cgroup/unified", controllers="memory pids", root_group=True)
    assert cgroups.version() == 2 and cgroups.check() is None
    assert cgroups.parent_dirs() == {c: unified / "arkevo-sandbox" for c in ("memory", "pids")}


def test_no_usable_cgroups_is_one_clear_message(tmp_path, monkeypatch):
    fake_host(tmp_path, monkeypatch, ["23 1 0:21 / /sys rw - sysfs sysfs rw"], ["0::/"])
    message = cgroups.check()
    assert cgroups.version() is None
    assert "cgroup v1 memory and pids hierarchies mounted read-write" in message
    assert "writable cgroup2 mount" in message and "memory and pids" in message
    assert "found: no cgroup v1 memory or pids hierarchy mounted; no cgroup2 mount in" in message
    with pytest.raises(CgroupError) as refused:
        TrialCgroup("t", memory_bytes=GiB, pids_max=64)
    assert str(refused.value) == message


def test_cgroup2_without_delegated_memory_and_pids_is_named(tmp_path, monkeypatch):
    root = fake_host(tmp_path, monkeypatch, [V2_MOUNT], [f"0::{SERVICE}"])
    group = v2_group(root / "sys/fs/cgroup" / SERVICE.lstrip("/"), controllers="cpu io")
    message = cgroups.check()
    assert f"cgroup2 group {group} offers controllers [cpu io], not memory and pids" in message


def test_read_only_hierarchies_are_named(tmp_path, monkeypatch, v2_host):
    real_access = os.access
    monkeypatch.setattr(cgroups.os, "access", lambda path, mode: (
        False if mode == os.W_OK and Path(path).is_relative_to(tmp_path) else real_access(path, mode)))
    assert f"cgroup2 group {v2_host} is not writable" in cgroups.check()
    fake_host(tmp_path, monkeypatch, V1_MOUNTS, ["0::/"])
    assert cgroups.version() == 1
    assert "the cgroup v1 memory hierarchy at" in cgroups.check()


# -- v2: delegation, limits, child groups -----------------------------------------------------


def test_v2_first_trial_moves_the_workers_processes_to_a_leaf_and_delegates(v2_host):
    trial = make_trial(memory_bytes=3 * GiB, pids_max=128, cpus=1.5)
    parent = v2_host / "arkevo-sandbox"
    group = parent / "arkevo-slot-0--t"
    assert trial.version == 2
    assert trial.dirs == {"memory": group, "pids": group, "cpu": group}
    # no internal processes: the worker's group hands its processes to a leaf before enabling
    assert (v2_host / "arkevo-worker/cgroup.procs").read_text() == "111\n222\n"
    assert (v2_host / "cgroup.subtree_control").read_text() == "+memory +pids +cpu"
    assert (parent / "cgroup.subtree_control").read_text() == "+memory +pids +cpu"
    assert (group / "cgroup.subtree_control").read_text() == "+memory +pids"
    assert (group / "memory.max").read_text() == str(3 * GiB)
    assert (group / "pids.max").read_text() == "128"
    assert (group / "cpu.max").read_text() == "150000 100000"
    assert not (group / "memory.swap.max").exists()  # only written where the kernel has it


def test_v2_later_trials_find_the_worker_in_its_leaf_and_move_nothing(v2_host, tmp_path):
    make_trial("a")
    (v2_host / "arkevo-worker/cgroup.procs").write_text("111\n")
    (tmp_path / "cgroup").write_text(f"0::{SERVICE}/arkevo-worker\n")  # where the kernel shows us now
    assert cgroups.v2_base() == v2_host and cgroups.check() is None
    (v2_host / "cgroup.procs").write_text("")
    make_trial("b")
    assert (v2_host / "arkevo-worker/cgroup.procs").read_text() == "111\n"
    assert (v2_host / "arkevo-sandbox/b/memory.max").exists()


def test_v2_swap_is_closed_and_tiny_cpu_shares_get_the_minimum_quota(v2_host):
    group = v2_host / "arkevo-sandbox/t"
    group.mkdir(parents=True)
    (group / "memory.swap.max").write_text("max\n")
    make_trial("t", cpus=0.001)
    assert (group / "memory.swap.max").read_text() == "0"  # as v1's memsw = memory
    assert (group / "cpu.max").read_text() == "1000 100000"


def test_v2_root_group_keeps_its_processes(tmp_path, monkeypatch):
    root = fake_host(tmp_path, monkeypatch, [V2_MOUNT], ["0::/"])
    top = v2_group(root / "sys/fs/cgroup", controllers="memory pids", procs="1\n", root_group=True)
    trial = make_trial("t", cpus=2)
    assert not (top / "arkevo-worker").exists()  # the root group is exempt from the rule
    assert (top / "cgroup.subtree_control").read_text() == "+memory +pids"
    assert set(trial.dirs) == {"memory", "pids"}
    assert not (top / "arkevo-sandbox/t/cpu.max").exists()  # cpu not delegated: no quota


def test_v2_child_groups_per_exec_and_spawn(v2_host):
    trial = make_trial()
    exec_group, spawn_group = trial.child("x1"), trial.child("s2")
    assert exec_group.version == 2 and exec_group.dirs["pids"] == trial.dirs["pids"] / "x1"
    assert spawn_group.unique_dirs() == [trial.dirs["memory"] / "s2"]
    (exec_group.dirs["memory"] / "cgroup.procs").write_text("")
    fds = exec_group.procs_fds()
    try:
        assert len(fds) == 1  # one hierarchy: one join for the launcher
    finally:
        for fd in fds:
            os.close(fd)
    with pytest.raises(ValueError):
        trial.child("../escape")


# -- v2: kill, events, stats, removal ----------------------------------------------------------


def test_v2_kill_writes_cgroup_kill_and_signals_nothing_itself(v2_host):
    trial = make_trial()
    exec_group = trial.child("x1")
    (trial.dirs["memory"] / "cgroup.kill").write_text("")
    procs = exec_group.dirs["memory"] / "cgroup.procs"
    procs.write_text("4242\n")
    signalled = []
    kernel = threading.Timer(0.1, procs.write_text, [""])  # the kernel's kill taking effect
    kernel.start()
    trial.kill_all(timeout_sec=5, send_signal=lambda pid, sig: signalled.append(pid))
    kernel.join()
    assert (trial.dirs["memory"] / "cgroup.kill").read_text() == "1"
    assert signalled == []


def test_v2_kill_without_cgroup_kill_freezes_and_signals_every_process(v2_host):
    trial = make_trial()
    groups = [trial.child("x1"), trial.child("s2")]
    sleepers = [subprocess.Popen(["sleep", "60"]) for _ in groups]
    for group, sleeper in zip(groups, sleepers):
        (group.dirs["memory"] / "cgroup.procs").write_text(f"{sleeper.pid}\n")
    freeze = trial.dirs["memory"] / "cgroup.freeze"
    freeze.write_text("0\n")
    seen = []

    def send_signal(pid: int, sig: int) -> None:
        seen.append((pid, sig, freeze.read_text()))
        os.kill(pid, sig)
        for group in groups:  # what the kernel does once the process is gone
            procs = group.dirs["memory"] / "cgroup.procs"
            procs.write_text(procs.read_text().replace(f"{pid}\n", ""))

    try:
        trial.kill_all(timeout_sec=5, send_signal=send_signal)
        assert [s.wait(timeout=5) for s in sleepers] == [-signal.SIGKILL] * 2
    finally:
        for sleeper in sleepers:
            sleeper.kill()
            sleeper.wait()
    assert sorted(pid for pid, _, _ in seen) == sorted(s.pid for s in sleepers)
    assert {(sig, state) for _, sig, state in seen} == {(signal.SIGKILL, "1")}
    assert freeze.read_text() == "0"


def test_v2_kill_gives_up_on_survivors(v2_host):
    trial = make_trial()
    (trial.child("x1").dirs["memory"] / "cgroup.procs").write_text("4242\n")
    with pytest.raises(CgroupError, match="survive SIGKILL: \\[4242\\]"):
        trial.kill_all(timeout_sec=0.1, send_signal=lambda pid, sig: None)


def test_v2_events_count_oom_kills_and_refused_forks_per_exec(v2_host):
    trial = make_trial()
    trial_dir = trial.dirs["memory"]
    (trial_dir / "pids.events").write_text("max 5\n")  # the trial's count before the exec
    x1 = trial.child("x1")
    (x1.dirs["memory"] / "memory.events").write_text(
        "low 0\nhigh 0\nmax 9\noom 2\noom_kill 2\noom_group_kill 0\n")
    (x1.dirs["pids"] / "pids.events").write_text("max 7\n")
    assert x1.events() == {"oom_kills": 2, "pids_limit_hits": 7}
    # Linux >= 6.11 counts the refusal where the limit sits (the trial), not in the exec's group
    (x1.dirs["pids"] / "pids.events").write_text("max 0\n")
    (trial_dir / "pids.events").write_text("max 9\n")
    assert x1.events() == {"oom_kills": 2, "pids_limit_hits": 4}


def test_v2_stats_read_peak_memory_tasks_and_cpu_time_in_ns(v2_host):
    trial = make_trial()
    group = trial.dirs["memory"]
    (group / "pids.current").write_text("3\n")
    (group / "cpu.stat").write_text("usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n")
    assert trial.stats() == {"pids_current": 3, "cpu_usage_ns": 2_500_000_000}  # no memory.peak before 5.19
    (group / "memory.peak").write_text("5242880\n")
    assert trial.stats()["memory_max_usage_bytes"] == 5242880


def test_v2_remove_kills_then_removes_groups_bottom_up(v2_host, monkeypatch):
    trial = make_trial()
    trial.child("x1")
    trial.child("s2")
    (trial.dirs["memory"] / "x1" / "inner").mkdir()
    (trial.dirs["memory"] / "cgroup.kill").write_text("")
    removed = plain_rmdir(monkeypatch)
    trial.remove()
    group = trial.dirs["memory"]
    assert removed[-1] == group and set(removed[:-1]) == {group / "x1", group / "s2", group / "x1/inner"}
    assert removed.index(group / "x1/inner") < removed.index(group / "x1")
    assert not group.exists() and (v2_host / "arkevo-sandbox").is_dir()


def test_v2_stale_groups_of_a_dead_worker_are_removed(v2_host, monkeypatch):
    parent = v2_host / "arkevo-sandbox"
    for name in ("arkevo-slot-0--old", "arkevo-slot-1--busy"):
        (parent / name / "x1").mkdir(parents=True)
    removed = plain_rmdir(monkeypatch)
    cgroups.remove_stale_groups("arkevo-slot-0--")
    assert removed == [parent / "arkevo-slot-0--old/x1", parent / "arkevo-slot-0--old"]
    assert (parent / "arkevo-slot-1--busy").is_dir()


# -- v1 on a fake tree ---------------------------------------------------------------------------


def test_v1_trial_limits_children_events_stats_and_freezer_kill(v1_host, monkeypatch):
    mount = v1_host / "sys/fs/cgroup"
    memory = mount / "memory/docker/abc/arkevo-sandbox/t"
    memory.mkdir(parents=True)
    (memory / "memory.memsw.limit_in_bytes").write_text("")
    trial = make_trial("t", memory_bytes=2 * GiB, pids_max=100, cpus=0.5)
    cpu = mount / "cpu,cpuacct/docker/abc/arkevo-sandbox/t"
    assert trial.version == 1 and trial.dirs["memory"] == memory
    assert (memory / "memory.limit_in_bytes").read_text() == str(2 * GiB)
    assert (memory / "memory.memsw.limit_in_bytes").read_text() == str(2 * GiB)
    assert (mount / "pids/docker/abc/arkevo-sandbox/t/pids.max").read_text() == "100"
    assert (cpu / "cpu.cfs_period_us").read_text() == "100000"
    assert (cpu / "cpu.cfs_quota_us").read_text() == "50000"
    assert not (mount / "memory/docker/abc/cgroup.subtree_control").exists()  # nothing of v2

    x1 = trial.child("x1")
    assert len(x1.unique_dirs()) == 4  # memory, pids, freezer, cpu+cpuacct
    (x1.dirs["memory"] / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 3\n")
    (x1.dirs["pids"] / "pids.events").write_text("max 6\n")
    assert x1.events() == {"oom_kills": 3, "pids_limit_hits": 6}

    (memory / "memory.max_usage_in_bytes").write_text("4096\n")
    (trial.dirs["pids"] / "pids.current").write_text("0\n")
    (cpu / "cpuacct.usage").write_text("2500000000\n")
    assert trial.stats() == {"memory_max_usage_bytes": 4096, "pids_current": 0,
                             "cpu_usage_ns": 2_500_000_000}

    sleeper = subprocess.Popen(["sleep", "60"])
    procs = x1.dirs["pids"] / "cgroup.procs"
    procs.write_text(f"{sleeper.pid}\n")
    freezer_state = trial.dirs["freezer"] / "freezer.state"
    seen = []

    def send_signal(pid: int, sig: int) -> None:
        seen.append(freezer_state.read_text())
        os.kill(pid, sig)
        procs.write_text("")

    try:
        trial.kill_all(timeout_sec=5, send_signal=send_signal)
        assert sleeper.wait(timeout=5) == -signal.SIGKILL
    finally:
        sleeper.kill()
        sleeper.wait()
    assert seen == ["FROZEN"] and freezer_state.read_text() == "THAWED"
    assert not (trial.dirs["memory"] / "cgroup.kill").exists()


# -- the real kernel -----------------------------------------------------------------------------


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root")
def test_real_kernel_trial_group_holds_kills_and_removes_a_process():
    if (problem := cgroups.check()) is not None:
        pytest.skip(problem)
    trial = TrialCgroup(f"arkevo-unit-{os.getpid()}", memory_bytes=256 << 20, pids_max=64, cpus=0.5)
    trial.create()
    sleeper = None
    try:
        group = trial.child("x1")
        sleeper = subprocess.Popen(["sleep", "60"])
        for directory in group.unique_dirs():
            (directory / "cgroup.procs").write_text(str(sleeper.pid))
        assert trial.pids() == {sleeper.pid}
        assert group.events().get("pids_limit_hits") == 0 and not any(group.events().values())
        assert trial.stats()["pids_current"] == 1
        limit = "memory.limit_in_bytes" if trial.version == 1 else "memory.max"
        assert (trial.dirs["memory"] / limit).read_text().strip() == str(256 << 20)
        trial.remove()
        assert sleeper.wait(timeout=5) == -signal.SIGKILL
        assert not any(d.exists() for d in trial.dirs.values())
    finally:
        if sleeper is not None and sleeper.poll() is None:
            sleeper.kill()
            sleeper.wait()
        if any(d.exists() for d in trial.dirs.values()):
            trial.remove()
