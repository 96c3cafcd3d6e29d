"""Landlock through raw syscalls (ctypes): confine a process to read-only and read-write trees.

Standalone (stdlib only): the launcher imports it inside the sandbox, where nothing of the
project is visible. Landlock is stackable and unprivileged; once `restrict()` returns, the
calling thread and every process it later execs can touch the filesystem only beneath the
given paths, and (ABI >= 6) cannot signal processes or reach abstract unix sockets outside
its own domain.

Rights are negotiated with the running kernel's ABI (1..7): a right the kernel does not know
is neither handled nor granted, so the same code runs on older kernels with the protection
that kernel can give. `abi_version()` returns 0 when Landlock is missing or disabled.
"""

from __future__ import annotations

import ctypes
import os
import stat

# x86_64 / aarch64 syscall numbers (same on both: Landlock came after the unified table).
_SYS_CREATE_RULESET = 444
_SYS_ADD_RULE = 445
_SYS_RESTRICT_SELF = 446

_CREATE_RULESET_VERSION = 1 << 0
_RULE_PATH_BENEATH = 1
_PR_SET_DUMPABLE = 4
_PR_SET_NO_NEW_PRIVS = 38

# Filesystem access rights (uapi/linux/landlock.h), with the ABI that introduced each.
EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13       # ABI 2: link/rename across directories
TRUNCATE = 1 << 14    # ABI 3
IOCTL_DEV = 1 << 15   # ABI 5: ioctl on character/block devices

_FS_BY_ABI = {1: (1 << 13) - 1, 2: REFER, 3: TRUNCATE, 5: IOCTL_DEV}
# Rights that make sense on a non-directory; the kernel rejects the others for file rules.
_FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV

# Scopes (ABI 6): deny reaching outside the domain.
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
SCOPE_SIGNAL = 1 << 1

READ_ONLY = EXECUTE | READ_FILE | READ_DIR
READ_WRITE = (1 << 16) - 1  # everything; masked to what the ABI handles
DEVICES = READ_FILE | WRITE_FILE | READ_DIR | TRUNCATE | IOCTL_DEV


class LandlockError(OSError):
    pass


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64),
                ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # the uapi struct is __attribute__((packed))
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.prctl.restype = ctypes.c_int


def _syscall(number: int, *args) -> int:
    result = _libc.syscall(ctypes.c_long(number), *args)
    if result < 0:
        err = ctypes.get_errno()
        raise LandlockError(err, os.strerror(err))
    return result


def abi_version() -> int:
    """The kernel's Landlock ABI (1..7), or 0 when unsupported or disabled at boot."""
    try:
        return _syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0),
                        ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except LandlockError:
        return 0


def handled_fs(abi: int) -> int:
    mask = 0
    for introduced, rights in _FS_BY_ABI.items():
        if abi >= introduced:
            mask |= rights
    return mask


def handled_scopes(abi: int) -> int:
    return SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0


def no_new_privs() -> None:
    """Required before restrict_self for an unprivileged caller; also stops setuid gains."""
    if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise LandlockError(err, f"PR_SET_NO_NEW_PRIVS: {os.strerror(err)}")


def set_dumpable() -> None:
    if _libc.prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise LandlockError(err, f"PR_SET_DUMPABLE: {os.strerror(err)}")


def restrict(rules: list[tuple[str, int]], *, scoped: bool = True) -> int:
    """Apply a ruleset granting each (path, rights) beneath path; everything else is denied.

    Missing paths are skipped (a rule cannot name what does not exist). Returns the ABI used.
    Raises LandlockError when the kernel has no Landlock.
    """
    abi = abi_version()
    if abi < 1:
        raise LandlockError(0, "Landlock is not supported by this kernel (or disabled at boot)")
    fs_mask = handled_fs(abi)
    attr = _RulesetAttr(fs_mask, 0, handled_scopes(abi) if scoped else 0)
    ruleset_fd = _syscall(_SYS_CREATE_RULESET, ctypes.byref(attr),
                          ctypes.c_size_t(ctypes.sizeof(attr)), ctypes.c_uint32(0))
    try:
        for path, rights in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except FileNotFoundError:
                continue
            try:
                allowed = rights & fs_mask
                if not stat.S_ISDIR(os.fstat(fd).st_mode):
                    allowed &= _FILE_RIGHTS
                rule = _PathBeneathAttr(allowed, fd)
                _syscall(_SYS_ADD_RULE, ctypes.c_int(ruleset_fd),
                         ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(rule), ctypes.c_uint32(0))
            except LandlockError as exc:
                raise LandlockError(exc.errno, f"landlock_add_rule({path}): {exc.strerror}") from None
            finally:
                os.close(fd)
        _syscall(_SYS_RESTRICT_SELF, ctypes.c_int(ruleset_fd), ctypes.c_uint32(0))
    finally:
        os.close(ruleset_fd)
    return abi
