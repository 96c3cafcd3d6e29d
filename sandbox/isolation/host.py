"""Can this host run the sandbox? One list of plain reasons, used by preflight, start and tests."""

from __future__ import annotations

import os
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

from sandbox.isolation import cgroups, landlock

MIN_BWRAP = (0, 8, 0)  # --size for tmpfs, --perms for --dir


def landlock_problem() -> str | None:
    abi = landlock.abi_version()
    if abi < 1:
        return ("the kernel has no Landlock (needs Linux >= 5.13 with CONFIG_SECURITY_LANDLOCK=y and "
                "'landlock' in the lsm= boot list); the sandbox refuses to run without it")
    return None


@lru_cache(maxsize=1)
def _bwrap_version() -> tuple[int, ...] | None:
    path = shutil.which("bwrap")
    if path is None:
        return None
    out = subprocess.run([path, "--version"], capture_output=True, text=True).stdout.split()
    try:
        return tuple(int(x) for x in out[-1].split("."))
    except (IndexError, ValueError):
        return (0,)


def problems(python_prefix: Path | None = None, python_base_prefix: Path | None = None) -> list[str]:
    found = []
    if os.geteuid() != 0:
        found.append("the worker must run as root (per-slot users, cgroups, namespaces)")
    if (message := landlock_problem()) is not None:
        found.append(message)
    version = _bwrap_version()
    if version is None:
        found.append("bubblewrap (bwrap) is not installed: run scripts/system-deps.sh")
    elif version < MIN_BWRAP:
        found.append(f"bubblewrap {'.'.join(map(str, version))} is too old (need >= 0.8.0)")
    if (message := cgroups.check()) is not None:
        found.append(message)
    if shutil.which("useradd") is None:
        found.append("useradd is missing (Debian package passwd)")
    try:
        if int(Path("/proc/sys/user/max_user_namespaces").read_text()) < 1:
            found.append("user namespaces are disabled (user.max_user_namespaces = 0)")
    except (OSError, ValueError):
        found.append("cannot read /proc/sys/user/max_user_namespaces")
    for label, path in (("venv", python_prefix), ("base interpreter", python_base_prefix)):
        if path is not None and not (path / "bin").is_dir():
            found.append(f"the {label} {path} has no bin/ folder")
    return found
