"""Per-trial cgroup: a memory ceiling, a task ceiling, a CPU quota when asked, and one handle
to kill everything. Works on cgroup v1 (one hierarchy per controller) and v2 (the unified one).

The trial's group is created under the worker's own cgroup (`<mount>/<worker's path>/
arkevo-sandbox/<trial>`, in each v1 hierarchy or once in v2), so the limits of whatever
supervises the worker still apply on top. Each exec or spawned process gets a child group
(`x<n>`, `s<n>`): the trial's limits cover them all (v1 memory with use_hierarchy, pids and
freezer are hierarchical; v2 is hierarchical throughout), while a timed-out exec can be killed
alone, with everything it forked, and its background processes that outlive it stay accounted.
Sandboxed processes join their group themselves (the launcher writes to the `cgroup.procs` fds
opened here); everything they fork stays in it, so `kill_all()` reaches daemons, double-forked
and `setsid` processes alike. A group is frozen before the kill loop (v1 `freezer` when
mounted, v2 `cgroup.freeze`) so a fork bomb cannot outrun it; v2's `cgroup.kill` (Linux 5.14)
kills the whole subtree in the kernel instead. The trial's CPU time is read at the end
(`TrialCgroup.stats`, v1 only with `cpuacct`): what the trial's cost records.

v1 is used when its memory and pids hierarchies are mounted (a controller binds to one
hierarchy only, so v2 cannot have them then), else v2. v2 lets a group enable controllers for
its children only while it holds no process itself (the no-internal-process rule), so the first
trial moves the worker's processes into the leaf `<own>/arkevo-worker` and enables memory, pids
(and cpu) in `<own>`, `<own>/arkevo-sandbox` and the trial group; processes only live in leaves.
"""

from __future__ import annotations

import errno
import os
import re
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

REQUIRED = ("memory", "pids")
OPTIONAL = ("freezer", "cpu", "cpuacct")
V2_OPTIONAL = ("cpu",)
PARENT_NAME = "arkevo-sandbox"
WORKER_LEAF = "arkevo-worker"
CPU_PERIOD_US = 100_000
ENABLE_ATTEMPTS = 5

# version -> (result key, controller, file, field) of the limits a group's own tasks hit
EVENT_FIELDS = {
    1: (("oom_kills", "memory", "memory.oom_control", "oom_kill"),
        ("pids_limit_hits", "pids", "pids.events", "max")),
    2: (("oom_kills", "memory", "memory.events", "oom_kill"),
        ("pids_limit_hits", "pids", "pids.events", "max")),
}


class CgroupError(RuntimeError):
    pass


@dataclass(frozen=True)
class CgroupHost:
    """Where this process's view of cgroups is read from: the kernel, or a fake tree in tests."""

    mountinfo: Path = Path("/proc/self/mountinfo")
    proc_cgroup: Path = Path("/proc/self/cgroup")
    root: Path = Path("/")  # prefix of every mount point that mountinfo names

    def path(self, mount_point: str) -> Path:
        return self.root / mount_point.lstrip("/")


HOST = CgroupHost()


def _mountinfo() -> list[tuple[str, str, str, str]]:
    """(root, mount point, fstype, super options) of every mount."""
    mounts = []
    with open(HOST.mountinfo) as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fstype, _source, super_opts = (right.split() + ["", ""])[:3]
            fields = left.split()
            if len(fields) < 5:
                continue
            mounts.append((_unescape(fields[3]), _unescape(fields[4]), fstype, super_opts))
    return mounts


def _unescape(field: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def v1_mounts() -> dict[str, Path]:
    """controller -> mount point of its v1 hierarchy."""
    mounts: dict[str, Path] = {}
    for _root, mount_point, fstype, super_opts in _mountinfo():
        if fstype != "cgroup":
            continue
        for option in super_opts.split(","):
            if option in REQUIRED + OPTIONAL:
                mounts.setdefault(option, HOST.path(mount_point))
    return mounts


def own_paths() -> dict[str, str]:
    """controller -> this process's path inside that v1 hierarchy."""
    paths: dict[str, str] = {}
    with open(HOST.proc_cgroup) as f:
        for line in f:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for controller in controllers.split(","):
                if controller:
                    paths[controller] = path
    return paths


def own_v2_path() -> str | None:
    """This process's path in the unified hierarchy (the `0::` line of /proc/self/cgroup)."""
    with open(HOST.proc_cgroup) as f:
        for line in f:
            if line.startswith("0::"):
                return line[3:].rstrip("\n")
    return None


def v2_base() -> Path:
    """The worker's own v2 group: trial groups go below its `arkevo-sandbox/`, its processes
    into its leaf `arkevo-worker/`. CgroupError saying what is missing when there is none."""
    mounts = [(root, point) for root, point, fstype, _ in _mountinfo() if fstype == "cgroup2"]
    if not mounts:
        raise CgroupError(f"no cgroup2 mount in {HOST.mountinfo}")
    mount_root, mount_point = next((m for m in mounts if m[1] == "/sys/fs/cgroup"), mounts[0])
    own = own_v2_path()
    if own is None:
        raise CgroupError(f"no cgroup v2 line (0::) in {HOST.proc_cgroup}")
    path = PurePosixPath(own)
    if path.name == WORKER_LEAF:
        path = path.parent  # moved there by an earlier trial (or another worker)
    try:
        relative = path.relative_to(mount_root)
    except ValueError:
        raise CgroupError(f"this process's cgroup {own} is outside the cgroup2 mount at "
                          f"{mount_point} (mount root {mount_root})") from None
    base = HOST.path(mount_point) / relative
    if not base.is_dir():
        raise CgroupError(f"this process's cgroup {base} does not exist")
    return base


def _v1_problem() -> str | None:
    mounts = v1_mounts()
    missing = [c for c in REQUIRED if c not in mounts]
    if missing:
        return f"no cgroup v1 {' or '.join(missing)} hierarchy mounted"
    for controller in REQUIRED:
        if not os.access(mounts[controller], os.W_OK):
            return f"the cgroup v1 {controller} hierarchy at {mounts[controller]} is not writable"
    return None


def _v2_problem() -> str | None:
    try:
        base = v2_base()
        offered = _words(base / "cgroup.controllers")
    except CgroupError as exc:
        return str(exc)
    except OSError as exc:
        return f"cannot read the cgroup2 controllers of this process's cgroup: {exc}"
    missing = [c for c in REQUIRED if c not in offered]
    if missing:
        return (f"cgroup2 group {base} offers controllers [{' '.join(sorted(offered))}], not "
                f"{' and '.join(missing)} (its parent must delegate them)")
    if not (os.access(base, os.W_OK) and os.access(base / "cgroup.subtree_control", os.W_OK)):
        return f"cgroup2 group {base} is not writable"
    return None


def version() -> int | None:
    """1 or 2: the cgroup interface trial groups use here; None when neither can hold them."""
    if all(c in v1_mounts() for c in REQUIRED):
        return 1
    return 2 if _v2_problem() is None else None


def check() -> str | None:
    """None when per-trial cgroups can be made here, else what was looked for and found."""
    chosen = version()
    v1_found = _v1_problem()
    if chosen == 2 or (chosen == 1 and v1_found is None):
        return None
    v2_found = _v2_problem() or "unused while cgroup v1 holds memory and pids"
    return ("the sandbox needs cgroup v1 memory and pids hierarchies mounted read-write, or a "
            "writable cgroup2 mount whose group for this process can delegate memory and pids "
            "(in a container: --cgroupns=private and /sys/fs/cgroup read-write; under systemd: "
            f"Delegate=yes); found: {v1_found}; {v2_found}")


class Cgroup:
    """The same-named group in every v1 hierarchy we use, or the one v2 group (then every
    controller maps to the same folder)."""

    def __init__(self, dirs: dict[str, Path], version: int = 1):
        self.dirs = dirs
        self.version = version
        # v2: the parent's refused-fork count when this group was made (see events())
        self.parent_pids_hits_at_start: int | None = None

    def child(self, name: str) -> Cgroup:
        _check_name(name)
        group = Cgroup({c: d / name for c, d in self.dirs.items()}, self.version)
        for directory in group.dirs.values():
            directory.mkdir(exist_ok=True)
        if self.version == 2:
            group.parent_pids_hits_at_start = _field_or_none(self.dirs["pids"] / "pids.events", "max")
        return group

    def unique_dirs(self) -> list[Path]:
        """One folder per hierarchy: controllers mounted together (`cpu,cpuacct`) share one."""
        return list(dict.fromkeys(self.dirs.values()))

    def procs_fds(self) -> list[int]:
        """Writable cgroup.procs fds, one per hierarchy, for a launcher to join with."""
        return [os.open(d / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC) for d in self.unique_dirs()]

    def _tree(self, directory: Path) -> list[Path]:
        """directory and every group below it, deepest first."""
        try:
            # scandir's entry types come with the listing: no stat of each of the ~30 control
            # files in a v1 group (a trial makes ~20 groups and walks each one's tree 3 times).
            with os.scandir(directory) as entries:
                children = [Path(e.path) for e in entries if e.is_dir(follow_symlinks=False)]
        except (FileNotFoundError, NotADirectoryError):
            return []
        return [p for child in children for p in self._tree(child)] + [directory]

    def pids(self) -> set[int]:
        found: set[int] = set()
        for root in self.unique_dirs():
            for directory in self._tree(root):
                try:
                    found.update(int(x) for x in (directory / "cgroup.procs").read_text().split())
                except FileNotFoundError:
                    continue
        return found

    def kill_all(self, timeout_sec: float = 15.0,
                 send_signal: Callable[[int, int], None] = os.kill) -> None:
        """SIGKILL every process in this group and below until none is left."""
        deadline = time.monotonic() + timeout_sec
        while True:
            killed_by_kernel = self._kernel_kill()
            if not (pids := self.pids()):
                return
            if not killed_by_kernel:
                frozen = self._freeze(True)
                for pid in pids:
                    try:
                        send_signal(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                if frozen:
                    self._freeze(False)  # killed tasks die once thawed
            if time.monotonic() > deadline:
                raise CgroupError(f"processes survive SIGKILL: {sorted(pids)[:10]}")
            time.sleep(0.02)

    def _kernel_kill(self) -> bool:
        """v2 `cgroup.kill`: the kernel kills the subtree, forks in flight included."""
        if self.version != 2:
            return False
        kill_file = self.dirs["memory"] / "cgroup.kill"
        return kill_file.exists() and _try_write(kill_file, 1)

    def _freeze(self, frozen: bool) -> bool:
        if self.version == 2:
            freeze_file = self.dirs["memory"] / "cgroup.freeze"
            return freeze_file.exists() and _try_write(freeze_file, int(frozen))
        freezer = self.dirs.get("freezer")
        return freezer is not None and _try_write(freezer / "freezer.state",
                                                  "FROZEN" if frozen else "THAWED")

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
        """Limits hit by this group's own tasks: OOM kills and refused forks are counted in the
        group of the task that hit them (v1; v2 before Linux 6.11 or with the
        `pids_localevents` mount option), not in the group holding the limit."""
        out: dict[str, int] = {}
        for key, controller, name, field in EVENT_FIELDS[self.version]:
            try:
                out[key] = _field(self.dirs[controller] / name, field)
            except (KeyError, OSError, ValueError, IndexError):
                pass
        if self.parent_pids_hits_at_start is not None:
            # v2 since 6.11 counts a refused fork in the group whose limit was hit (the trial):
            # those of the time this group lived (an exec running beside it may share them)
            now = _field_or_none(self.dirs["pids"].parent / "pids.events", "max")
            during = (now or 0) - self.parent_pids_hits_at_start
            if during > out.get("pids_limit_hits", 0):
                out["pids_limit_hits"] = during
        return out

    def remove_if_empty(self) -> bool:
        if self.pids():
            return False
        self.remove()
        return True


def parent_dirs(chosen: int | None = None) -> dict[str, Path]:
    """controller -> the folder holding every trial group of this worker's cgroup."""
    if (chosen or version()) == 2:
        base = v2_base()
        offered = _words(base / "cgroup.controllers")
        return {c: base / PARENT_NAME for c in REQUIRED + V2_OPTIONAL if c in offered}
    mounts, own = v1_mounts(), own_paths()
    return {controller: mounts[controller] / own.get(controller, "/").lstrip("/") / PARENT_NAME
            for controller in REQUIRED + OPTIONAL if controller in mounts}


def remove_stale_groups(prefix: str) -> None:
    """Kill and remove trial groups whose name starts with prefix (left by a dead worker)."""
    chosen = version() or 1
    parents = parent_dirs(chosen)
    names = {p.name for d in parents.values() if d.is_dir()
             for p in d.iterdir() if p.is_dir() and p.name.startswith(prefix)}
    for name in names:
        Cgroup({c: d / name for c, d in parents.items()}, chosen).remove()


class TrialCgroup(Cgroup):
    def __init__(self, name: str, *, memory_bytes: int, pids_max: int, cpus: float | None = None):
        _check_name(name)
        self.name = name
        self.memory_bytes = memory_bytes
        self.pids_max = pids_max
        self.cpus = cpus
        chosen = version()
        if chosen is None:
            raise CgroupError(check())
        super().__init__({c: d / name for c, d in parent_dirs(chosen).items()}, chosen)

    def create(self) -> None:
        if self.version == 2:
            self._create_v2()
            return
        for directory in self.dirs.values():
            directory.mkdir(parents=True, exist_ok=True)
        memory = self.dirs["memory"]
        _write(memory / "memory.limit_in_bytes", self.memory_bytes)
        if (memory / "memory.memsw.limit_in_bytes").exists():
            _write(memory / "memory.memsw.limit_in_bytes", self.memory_bytes)  # no swap escape
        _write(self.dirs["pids"] / "pids.max", self.pids_max)
        if self.cpus and "cpu" in self.dirs:
            _write(self.dirs["cpu"] / "cpu.cfs_period_us", CPU_PERIOD_US)
            _write(self.dirs["cpu"] / "cpu.cfs_quota_us", _cpu_quota_us(self.cpus))

    def _create_v2(self) -> None:
        group = self.dirs["memory"]
        parent = group.parent
        enabled = _delegate(parent.parent, list(self.dirs))
        if "cpu" not in enabled:
            self.dirs.pop("cpu", None)
        parent.mkdir(exist_ok=True)
        _enable(parent, enabled)
        group.mkdir(exist_ok=True)
        _write(group / "memory.max", self.memory_bytes)
        if (group / "memory.swap.max").exists():
            _write(group / "memory.swap.max", 0)  # no swap escape, as v1's memsw = memory
        _write(group / "pids.max", self.pids_max)
        if self.cpus and "cpu" in self.dirs:
            _write(group / "cpu.max", f"{_cpu_quota_us(self.cpus)} {CPU_PERIOD_US}")
        _enable(group, list(REQUIRED))  # per-exec memory.events and pids.events

    def stats(self) -> dict:
        """Peak memory, tasks now and CPU time in ns (v1: with cpuacct), all hierarchical: the
        whole trial, its exited processes included."""
        memory, pids = self.dirs["memory"], self.dirs["pids"]
        out: dict[str, int] = {}
        if self.version == 2:
            sources = [("memory_max_usage_bytes", memory / "memory.peak", None, 1),  # Linux 5.19
                       ("pids_current", pids / "pids.current", None, 1),
                       ("cpu_usage_ns", memory / "cpu.stat", "usage_usec", 1000)]
        else:
            sources = [("memory_max_usage_bytes", memory / "memory.max_usage_in_bytes", None, 1),
                       ("pids_current", pids / "pids.current", None, 1)]
            if "cpuacct" in self.dirs:
                sources.append(("cpu_usage_ns", self.dirs["cpuacct"] / "cpuacct.usage", None, 1))
        for key, path, field, scale in sources:
            try:
                value = _field(path, field) if field else int(path.read_text().split()[0])
                out[key] = value * scale
            except (OSError, ValueError, IndexError):
                pass
        return out


def _delegate(base: Path, controllers: list[str]) -> list[str]:
    """Enable controllers for the children of the worker's own v2 group, moving its processes
    into a leaf first (as systemd and docker-in-docker do); returns those enabled."""
    if set(controllers) <= _words(base / "cgroup.subtree_control"):
        return controllers
    for attempt in range(ENABLE_ATTEMPTS):
        if (base / "cgroup.type").exists():  # absent on the root group, which is exempt
            leaf = base / WORKER_LEAF
            leaf.mkdir(exist_ok=True)
            _move_processes(base, leaf)
        try:
            return _enable(base, controllers)
        except OSError as exc:
            # EBUSY: a process forked into base between the move and the write
            if exc.errno != errno.EBUSY or attempt == ENABLE_ATTEMPTS - 1:
                raise CgroupError(f"cannot enable {' '.join(controllers)} in "
                                  f"{base / 'cgroup.subtree_control'}: {exc}") from exc
    raise AssertionError("unreachable")


def _move_processes(source: Path, leaf: Path) -> None:
    pids = _words(source / "cgroup.procs")
    if not pids:
        return
    fd = os.open(leaf / "cgroup.procs", os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        for pid in sorted(pids, key=int):
            try:
                os.write(fd, f"{pid}\n".encode())  # the kernel takes one pid per write
            except ProcessLookupError:
                pass  # exited meanwhile
    finally:
        os.close(fd)


def _enable(directory: Path, controllers: list[str]) -> list[str]:
    """Enable controllers for directory's children; cpu is dropped if the kernel refuses it."""
    try:
        _write(directory / "cgroup.subtree_control", " ".join(f"+{c}" for c in controllers))
        return controllers
    except OSError as exc:
        if exc.errno == errno.EBUSY or "cpu" not in controllers:
            raise
    rest = [c for c in controllers if c != "cpu"]  # optional (refused beside realtime tasks)
    _write(directory / "cgroup.subtree_control", " ".join(f"+{c}" for c in rest))
    return rest


def _cpu_quota_us(cpus: float) -> int:
    return max(1000, int(cpus * CPU_PERIOD_US))


def _words(path: Path) -> set[str]:
    """Words of a cgroup list file (`+` of subtree_control writes dropped); empty if absent."""
    try:
        return {w.lstrip("+") for w in path.read_text().split()}
    except FileNotFoundError:
        return set()


def _field(path: Path, field: str) -> int:
    """The value of `field` in a flat-keyed file (`key value` pairs)."""
    words = path.read_text().split()
    return int(words[words.index(field) + 1])


def _field_or_none(path: Path, field: str) -> int | None:
    try:
        return _field(path, field)
    except (OSError, ValueError, IndexError):
        return None


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
