"""What a sandboxed process sees, as one list of binds — turned into bubblewrap arguments and
into the matching Landlock rules, so the two layers can never disagree.

bwrap (run by the worker as root, not setuid) builds a fresh mount namespace whose root is an
empty tmpfs, remounted read-only at the end, holding only:

* the system, read-only: /usr /etc and /bin /sbin /lib* (as the symlinks they are on a
  merged-/usr host), a new /proc for the new pid namespace, a minimal /dev, a private /dev/shm;
* the runtime, read-only, at its own absolute path: the worker's venv (`sys.prefix`, with bpy)
  and its base interpreter (`sys.base_prefix`) — nothing else of /work or /root —, the Blender
  MCP host at /opt/arkevo/runtime and the launcher at /opt/arkevo/launcher;
* the slot's folders (workspace, /tmp, home, /logs read-write; /tests, /solution read-only).

plus fresh ipc and uts namespaces, and the trial's shared pid namespace (`--pidns`, see
trialns.py). The user namespace, the uid drop, the network namespace and Landlock are the
launcher's job.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal

SYSTEM_DIRS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32")
LAUNCHER_DIR = "/opt/arkevo/launcher"
RUNTIME_DIR = "/opt/arkevo/runtime"
SHM_BYTES = 512 * 1024 * 1024

Mode = Literal["ro", "rw", "dev"]


@dataclass(frozen=True)
class Bind:
    source: Path  # on the host
    target: str   # inside the sandbox
    mode: Mode


@dataclass
class SandboxView:
    binds: list[Bind]
    pidns_fd: int
    hostname: str = "sandbox"
    env: dict[str, str] = field(default_factory=dict)

    def bwrap_args(self) -> list[str]:
        """bwrap options (without the program name and without the command)."""
        args = ["--pidns", str(self.pidns_fd), "--unshare-ipc", "--unshare-uts",
                "--unshare-cgroup-try",
                "--hostname", self.hostname, "--die-with-parent", "--new-session",
                "--clearenv"]
        for key, value in self.env.items():
            args += ["--setenv", key, value]
        made: set[str] = {"/"}
        for directory in SYSTEM_DIRS:
            host = Path(directory)
            if host.is_symlink():
                args += ["--symlink", os.readlink(host), directory]
            elif host.is_dir():
                args += ["--ro-bind", directory, directory]
            made.add(directory)
        args += ["--proc", "/proc", "--dev", "/dev",
                 "--size", str(SHM_BYTES), "--perms", "1777", "--tmpfs", "/dev/shm"]
        made.update({"/proc", "/dev"})
        # Shallow targets first: a later mount never hides an earlier one, e.g. a venv that
        # lives under /tmp (a checkout in /tmp) stays visible over the slot's /tmp.
        for bind in sorted(self.binds, key=lambda b: len(PurePosixPath(b.target).parts)):
            args += _parents(bind.target, made)
            flag = {"ro": "--ro-bind", "rw": "--bind", "dev": "--dev-bind"}[bind.mode]
            args += [flag, str(bind.source), bind.target]
            made.add(bind.target)
        args += ["--remount-ro", "/"]
        return args

    def landlock_rules(self) -> list[list[str]]:
        """(path, kind) pairs for the launcher: the same tree, nothing more."""
        rules = [[d, "ro"] for d in SYSTEM_DIRS if Path(d).exists() and not Path(d).is_symlink()]
        rules += [["/proc", "ro"], ["/dev", "dev"], ["/dev/shm", "rw"]]
        rules += [[bind.target, bind.mode] for bind in self.binds]
        return rules


def _parents(target: str, made: set[str]) -> list[str]:
    """World-traversable directories for every missing ancestor (bwrap would make them 0700)."""
    args: list[str] = []
    for parent in reversed(PurePosixPath(target).parents):
        text = str(parent)
        if text not in made:
            args += ["--perms", "0755", "--dir", text]
            made.add(text)
    return args
