"""Per-trial cgroup (v1): a memory ceiling, a task ceiling, a CPU quota when asked, and one
handle to kill everything.

The trial's group is created under the worker's own cgroup in each hierarchy
(`<mount>/<worker's path>/arkevo-sandbox/<trial>`), so the limits of whatever supervises the
worker still apply on top. Each exec or spawned process gets a child group (`x<n>`, `s<n>`):
the trial's limits cover them all (v1 memory with use_hierarchy, pids and freezer are
hierarchical), while a timed-out exec can be killed alone, with everything it forked, and its
background processes that outlive it stay accounted. Sandboxed processes join their group
themselves (the launcher writes to the `cgroup.procs` fds opened here); everything they fork
stays in it, so `kill_all()` reaches daemons, double-forked and `setsid` processes alike. When
the `freezer` hierarchy is mounted a group is frozen first, so a fork bomb cannot outrun the
kill loop. When `cpuacct` is mounted (on its own or with `cpu`, as `cpu,cpuacct`) the trial's
CPU time is read at the end (`TrialCgroup.stats`): what the trial's cost records.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

REQUIRED = ("memory", "pids")
OPTIONAL = ("freezer", "cpu", "cpuacct")
PARENT_NAME = "arkevo-sandbox"
CPU_PERIOD_US = 100_000


class CgroupError(RuntimeError):
    pass


def v1_mounts() -> dict[str, Path]:
    """controller -> mount point of its v1 hierarchy."""
    mounts: dict[str, Path] = {}
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fstype, _source, super_opts = (right.split() + ["", ""])[:3]
            if fstype != "cgroup":
                continue
            mount_point = Path(left.split()[4])
            for option in super_opts.split(","):
                if option in REQUIRED + OPTIONAL:
                    mounts.setdefault(option, mount_point)
    return mounts


def own_paths() -> dict[str, str]:
    """controller -> this process's path inside that hierarchy."""
    paths: dict[str, str] = {}
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for controller in controllers.split(","):
                if controller:
                    paths[controller] = path
    return paths


def check() -> str | None:
    """None when per-trial cgroups can be made here, else why not."""
    mounts = v1_mounts()
    missing = [c for c in REQUIRED if c not in mounts]
    if missing:
        return (f"cgroup v1 controller(s) {', '.join(missing)} not mounted under /sys/fs/cgroup "
                "(the sandbox needs the v1 memory and pids hierarchies, mounted read-write)")
    for controller in REQUIRED:
        if not os.access(mounts[controller], os.W_OK):
            return f"cgroup v1 {controller} hierarchy at {mounts[controller]} is not writable"
    return None


class Cgroup:
    """The same-named group in every hierarchy we use."""

    def __init__(self, dirs: dict[str, Path]):
        self.dirs = dirs

    def child(self, name: str) -> Cgroup:
        _check_name(name)
        group = Cgroup({c: d / name for c, d in self.dirs.items()})
        for directory in group.dirs.values():
            directory.mkdir(exist_ok=True)
        return group

    def unique_dirs(self) -> list[Path]:
        """One folder per hierarchy: controllers mounted together (`cpu,cpuacct`) share one."""
        return list(dict.fromkeys(self.dirs.values()))

    def procs_fds(self) -> list[int]:
        """Writable cgroup.procs fds, one per hierarchy, for a launcher to join with."""
        return [os.open(d / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC) for d in self.unique_dirs()]

    def _tree(self, directory: Path) -> list[Path]:
        """directory and every group below it, deepest first."""
        if not directory.is_dir():
            return []
        below = [p for child in directory.iterdir() if child.is_dir() for p in self._tree(child)]
        return below + [directory]

    def pids(self) -> set[int]:
        found: set[int] = set()
        for root in self.unique_dirs():
            for directory in self._tree(root):
                try:
                    found.update(int(x) for x in (directory / "cgroup.procs").read_text().split())
                except FileNotFoundError:
                    continue
        return found

    def kill_all(self, timeout_sec: float = 15.0) -> None:
        """SIGKILL every process in this group and below until none is left."""
        freezer = self.dirs.get("freezer")
        deadline = time.monotonic() + timeout_sec
        while pids := self.pids():
            frozen = freezer is not None and _try_write(freezer / "freezer.state", "FROZEN")
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if frozen:
                _try_write(freezer / "freezer.state", "THAWED")  # killed tasks die once thawed
            if time.monotonic() > deadline:
                raise CgroupError(f"processes survive SIGKILL: {sorted(pids)[:10]}")
            time.sleep(0.02)

    def remove(self) -> None:
        """Kill everything, then remove the groups bottom-up."""
        self.kill_all()
        for root in self.unique_dirs():
            for directory in self._tree(root):
                for _ in range(100):  # rmdir can lag the last exit by a moment
                    try:
                        directory.rmdir()
                        break
                    except FileNotFoundError:
                        break
                    except OSError:
                        time.sleep(0.02)
                else:
                    raise CgroupError(f"cannot remove cgroup {directory}")

    def events(self) -> dict[str, int]:
        """Limits hit by this group's own tasks: v1 counts OOM kills and refused forks in the
        group of the task that hit them, not in the group holding the limit."""
        out: dict[str, int] = {}
        for key, controller, name, field in (("oom_kills", "memory", "memory.oom_control", "oom_kill"),
                                             ("pids_limit_hits", "pids", "pids.events", "max")):
            try:
                words = (self.dirs[controller] / name).read_text().split()
                out[key] = int(words[words.index(field) + 1])
            except (KeyError, OSError, ValueError, IndexError):
                pass
        return out

    def remove_if_empty(self) -> bool:
        if self.pids():
            return False
        self.remove()
        return True


def parent_dirs() -> dict[str, Path]:
    """controller -> the folder holding every trial group of this worker's cgroup."""
    mounts, own = v1_mounts(), own_paths()
    return {controller: mounts[controller] / own.get(controller, "/").lstrip("/") / PARENT_NAME
            for controller in REQUIRED + OPTIONAL if controller in mounts}


def remove_stale_groups(prefix: str) -> None:
    """Kill and remove trial groups whose name starts with prefix (left by a dead worker)."""
    names = {p.name for d in parent_dirs().values() if d.is_dir()
             for p in d.iterdir() if p.is_dir() and p.name.startswith(prefix)}
    for name in names:
        Cgroup({c: d / name for c, d in parent_dirs().items()}).remove()


class TrialCgroup(Cgroup):
    def __init__(self, name: str, *, memory_bytes: int, pids_max: int, cpus: float | None = None):
        _check_name(name)
        self.name = name
        self.memory_bytes = memory_bytes
        self.pids_max = pids_max
        self.cpus = cpus
        if any(c not in v1_mounts() for c in REQUIRED):
            raise CgroupError(check())
        super().__init__({c: d / name for c, d in parent_dirs().items()})

    def create(self) -> None:
        for directory in self.dirs.values():
            directory.mkdir(parents=True, exist_ok=True)
        memory = self.dirs["memory"]
        _write(memory / "memory.limit_in_bytes", self.memory_bytes)
        if (memory / "memory.memsw.limit_in_bytes").exists():
            _write(memory / "memory.memsw.limit_in_bytes", self.memory_bytes)  # no swap escape
        _write(self.dirs["pids"] / "pids.max", self.pids_max)
        if self.cpus and "cpu" in self.dirs:
            _write(self.dirs["cpu"] / "cpu.cfs_period_us", CPU_PERIOD_US)
            _write(self.dirs["cpu"] / "cpu.cfs_quota_us", max(1000, int(self.cpus * CPU_PERIOD_US)))

    def stats(self) -> dict:
        """Peak memory, tasks now and, with cpuacct, CPU time in ns (all hierarchical: the
        whole trial, its exited processes included)."""
        memory, pids = self.dirs["memory"], self.dirs["pids"]
        out: dict[str, int] = {}
        sources = [("memory_max_usage_bytes", memory / "memory.max_usage_in_bytes"),
                   ("pids_current", pids / "pids.current")]
        if "cpuacct" in self.dirs:
            sources.append(("cpu_usage_ns", self.dirs["cpuacct"] / "cpuacct.usage"))
        for key, path in sources:
            try:
                out[key] = int(path.read_text().split()[0])
            except (OSError, ValueError, IndexError):
                pass
        return out


def _check_name(name: str) -> None:
    if "/" in name or name in ("", ".", ".."):
        raise ValueError(f"bad cgroup name {name!r}")


def _write(path: Path, value) -> None:
    with open(path, "w") as f:
        f.write(str(value))


def _try_write(path: Path, value) -> bool:
    try:
        _write(path, value)
        return True
    except OSError:
        return False
