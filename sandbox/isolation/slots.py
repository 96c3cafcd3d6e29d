"""A pool of sandbox slots: one unprivileged host user and one folder tree per slot.

Slot N is the user `arkevo-slot-N` (system account, no login shell, created once with useradd
and reused) and the folder `<base>/slots/N/work/`, wiped before every use. An exclusive
`flock` on `/run/arkevo-sandbox/<user>.lock`, held for as long as a trial uses the slot, keeps
two worker processes (or two trials in one process) from ever sharing a slot user — the lock is
per user and host-wide, so pools with different base folders still never share one; the kernel
drops the lock when a worker dies, and the next taker wipes what it left and kills any process
still running as that user.

Everything under `<base>` is root-owned and closed to other users (0700/0711): a slot user
sees its folders only through the bind mounts of its sandbox, never another slot's.
"""

from __future__ import annotations

import fcntl
import grp
import os
import pwd
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

# Folders of a slot. Writable ones belong to the slot user; the read-only ones stay root's,
# filled only by the worker (tests, solution, private), so a solver can never plant files there.
RW_DIRS = ("home", "workspace", "tmp", "logs", "logs/agent", "logs/verifier",
           "logs/artifacts", "logs/user-agent")
RO_DIRS = ("tests", "solution", "private")


class SlotUnavailable(RuntimeError):
    pass


@dataclass
class Slot:
    index: int
    user: str
    uid: int
    gid: int
    root: Path
    _lock_fd: int = field(repr=False, default=-1)

    @property
    def work(self) -> Path:
        return self.root / "work"

    def dir(self, name: str) -> Path:
        return self.work / name

    # One $HOME path for every slot: Blender saves it in a .blend's UI data (the file browser's
    # directory), so a per-slot path made the same work differ byte-wise with the slot it ran in.
    container_home = "/home/sandbox"


LOCK_DIR = Path("/run/arkevo-sandbox")


class SlotPool:
    def __init__(self, base_dir: Path, size: int, user_prefix: str = "arkevo-slot-",
                 lock_dir: Path = LOCK_DIR, uid_base: int | None = None):
        self.base_dir = Path(base_dir)
        self.size = size
        self.user_prefix = user_prefix
        self.lock_dir = Path(lock_dir)
        self.uid_base = uid_base

    # -- acquire / release -------------------------------------------------------------

    def acquire(self, timeout_sec: float = 600.0, poll_sec: float = 0.2) -> Slot:
        """Take a free slot (blocking, for a thread): lock, user, clean folder tree."""
        self._ensure_base()
        deadline = time.monotonic() + timeout_sec
        while True:
            for index in range(self.size):
                fd = self._try_lock(index)
                if fd is None:
                    continue
                try:
                    uid, gid = self.ensure_user(index)
                    slot = Slot(index, self.user_name(index), uid, gid,
                                self.base_dir / "slots" / str(index), fd)
                    self.wipe(slot)
                    return slot
                except BaseException:
                    os.close(fd)
                    raise
            if time.monotonic() >= deadline:
                raise SlotUnavailable(
                    f"all {self.size} sandbox slots under {self.base_dir} are busy after "
                    f"{timeout_sec:.0f}s (raise --ek slots=N or wait for running trials)")
            time.sleep(poll_sec)

    def release(self, slot: Slot) -> None:
        """Wipe the slot and hand it back. Safe to call twice."""
        if slot._lock_fd < 0:
            return
        try:
            self.wipe(slot)
        finally:
            os.close(slot._lock_fd)
            slot._lock_fd = -1

    def _try_lock(self, index: int) -> int | None:
        path = self.lock_dir / f"{self.user_name(index)}.lock"
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        return fd

    # -- folders -------------------------------------------------------------------------

    def _ensure_base(self) -> None:
        for path, mode in ((self.base_dir, 0o711), (self.base_dir / "slots", 0o700),
                           (self.lock_dir, 0o700)):
            path.mkdir(parents=True, exist_ok=True)
            os.chown(path, 0, 0)
            path.chmod(mode)

    def wipe(self, slot: Slot) -> None:
        """No process of the slot user survives; the folder tree is recreated empty."""
        kill_user_processes(slot.uid)
        slot.root.mkdir(parents=True, exist_ok=True)
        slot.root.chmod(0o700)
        if slot.work.exists():
            shutil.rmtree(slot.work)  # fd-based: does not follow the slot user's symlinks
        slot.work.mkdir(mode=0o755)
        for name in RW_DIRS:
            path = slot.dir(name)
            path.mkdir(exist_ok=True)
            os.chown(path, slot.uid, slot.gid)
            path.chmod(0o1777 if name == "tmp" else 0o755)
        for name in RO_DIRS:
            slot.dir(name).mkdir(mode=0o755, exist_ok=True)

    # -- users ---------------------------------------------------------------------------

    def user_name(self, index: int) -> str:
        return f"{self.user_prefix}{index}"

    def ensure_user(self, index: int) -> tuple[int, int]:
        name = self.user_name(index)
        try:
            return self._checked(pwd.getpwnam(name), index)
        except KeyError:
            pass
        with open(self.lock_dir / "useradd.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                return self._checked(pwd.getpwnam(name), index)  # another worker made it meanwhile
            except KeyError:
                pass
            ids = []
            if self.uid_base is not None:
                uid = self.uid_base + index
                ids = ["--uid", str(uid)]
                try:
                    grp.getgrgid(uid)
                except KeyError:
                    subprocess.run(["groupadd", "--system", "--gid", str(uid), name],
                                   capture_output=True, text=True, check=False)
                    ids += ["--gid", str(uid)]
            result = subprocess.run(
                ["useradd", "--system", *(ids or ["--user-group"]), "--no-create-home",
                 "--home-dir", f"/home/{name}", "--shell", "/usr/sbin/nologin",
                 "--comment", "arkevo sandbox slot", name],
                capture_output=True, text=True)
            if result.returncode != 0:
                raise SlotUnavailable(f"useradd {name} failed: {result.stderr.strip()}")
        return self._checked(pwd.getpwnam(name), index)

    def _checked(self, entry: pwd.struct_passwd, index: int) -> tuple[int, int]:
        if self.uid_base is not None and entry.pw_uid != self.uid_base + index:
            raise SlotUnavailable(f"{entry.pw_name} has uid {entry.pw_uid}, not "
                                  f"{self.uid_base + index} (ARKEVO_SANDBOX_UID_BASE); remove "
                                  "the user or unset the variable")
        return entry.pw_uid, entry.pw_gid


def user_pids(uid: int) -> list[int]:
    """Host pids whose real, effective or saved uid is `uid`."""
    wanted, pids = str(uid).encode(), []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        # Raw bytes, two fields: a sandbox session scans every process of the host twice, and
        # text-mode lines into a dict cost 2.6x as much CPU.
        try:
            fd = os.open(f"/proc/{name}/status", os.O_RDONLY | os.O_CLOEXEC)
            try:
                status = os.read(fd, 1 << 16)
            finally:
                os.close(fd)
        except OSError:
            continue
        if _status_field(status, b"State")[:1] == [b"Z"]:
            continue  # a zombie holds nothing and is its parent's to reap
        if wanted in _status_field(status, b"Uid")[:3]:
            pids.append(int(name))
    return pids


def _status_field(status: bytes, key: bytes) -> list[bytes]:
    """The words of one `Key:` line of /proc/<pid>/status."""
    at = (b"\n" + status).find(b"\n" + key + b":")  # = where the key starts in status
    if at < 0:
        return []
    start = at + len(key) + 1
    end = status.find(b"\n", start)
    return status[start:end if end >= 0 else None].split()


def kill_user_processes(uid: int, timeout_sec: float = 10.0) -> None:
    """SIGKILL every process of a slot user until none is left (a fork bomb included)."""
    if uid == 0:
        raise ValueError("refusing to kill processes of root")
    deadline = time.monotonic() + timeout_sec
    while pids := user_pids(uid):
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if time.monotonic() > deadline:
            raise SlotUnavailable(f"processes of uid {uid} survive SIGKILL: {pids[:10]}")
        time.sleep(0.05)
