"""Runs inside bwrap, as root of the fresh mount/pid namespaces, right before the target command.

    python3 -I -S /opt/arkevo/launcher/launcher.py '<config json>' -- argv...

Standalone (stdlib + the sibling landlock.py): nothing of the project is visible in the sandbox.
In order, each step only narrowing what the next one can do:

1. join the trial's cgroups (memory, pids, ...) by writing 0 to the cgroup.procs fds the worker
   opened, and the trial's network namespace (setns on the netns fd): the slot's processes
   are accounted and killable as one group and see only the trial's own loopback;
2. resource limits (address space, processes, open files, file size, CPU seconds, no cores);
3. PR_SET_NO_NEW_PRIVS: no setuid/file-capability gains from here on;
4. drop to the slot's user: setgroups([]) + setresgid + setresuid — every capability is gone;
5. a user namespace of its own mapping only the slot's uid/gid, with nested user namespaces
   disabled (max_user_namespaces=0) so the command cannot reach the kernel surface that
   unprivileged namespaces (nf_tables, mount) expose;
6. Landlock: read-only system/runtime trees, read-write only the slot's folders (its signal
   and abstract-socket scopes stay off by default: the trial's pid and network namespaces
   already fence those, and the scopes would stop one exec from signalling a process an
   earlier exec of the same trial left running);
7. close every other fd, chdir, exec.

The status fd tells the worker how the launch went: `ok` once every step holds (then the
command is exec'd; a missing command or bad cwd is the command's own failure, reported on
stderr like a shell would), or `arkevo-launcher: <step>: <error>` — an infrastructure fault,
after which the launcher exits 125 without running anything.
"""

from __future__ import annotations

import json
import os
import resource
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # -I drops the script dir

import landlock  # noqa: E402

RLIMITS = {
    "as": resource.RLIMIT_AS,
    "nproc": resource.RLIMIT_NPROC,
    "nofile": resource.RLIMIT_NOFILE,
    "fsize": resource.RLIMIT_FSIZE,
    "cpu": resource.RLIMIT_CPU,
    "core": resource.RLIMIT_CORE,
}
ACCESS = {"ro": landlock.READ_ONLY, "rw": landlock.READ_WRITE, "dev": landlock.DEVICES}
EXIT_LAUNCH_FAILED = 125


class LaunchError(Exception):
    pass


def _step(name: str, fn, *args) -> None:
    try:
        fn(*args)
    except LaunchError:
        raise
    except Exception as exc:  # noqa: BLE001 - every failure here is reported the same way
        raise LaunchError(f"{name}: {exc}") from None


def join_cgroups(fds: list[int]) -> None:
    for fd in fds:
        os.write(fd, b"0")  # 0 = the writing process (v1 and v2)
        os.close(fd)


def join_netns(fd: int | None) -> None:
    if fd is None:
        return
    os.setns(fd, os.CLONE_NEWNET)
    os.close(fd)


def set_rlimits(limits: dict[str, int | None]) -> None:
    for name, value in limits.items():
        if value is None:
            continue
        resource.setrlimit(RLIMITS[name], (value, value))


def drop_user(uid: int, gid: int) -> None:
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if os.getresuid() != (uid, uid, uid) or os.getresgid() != (gid, gid, gid) or os.getgroups():
        raise LaunchError("uid/gid drop did not stick")
    # The uid change made us non-dumpable, which leaves /proc/self owned by root; the exec
    # below would reset it anyway, and the user-namespace step must write /proc/self/*.
    landlock.set_dumpable()


def own_user_namespace(uid: int, gid: int) -> None:
    os.unshare(os.CLONE_NEWUSER)
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                       ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)
    # Only root of this namespace may change it; after exec the command is not root here.
    with open("/proc/sys/user/max_user_namespaces", "w") as f:
        f.write("0")


def apply_landlock(paths: list[list[str]], required: bool, scoped: bool) -> None:
    rules = [(path, ACCESS[kind]) for path, kind in paths]
    try:
        landlock.no_new_privs()
        landlock.restrict(rules, scoped=scoped)
    except landlock.LandlockError:
        if required:
            raise


def close_other_fds(keep: set[int]) -> None:
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def launch(config: dict, argv: list[str]) -> None:
    status_fd = config.get("status_fd")
    _step("cgroups", join_cgroups, config.get("cgroup_fds", []))
    _step("netns", join_netns, config.get("netns_fd"))
    _step("rlimits", set_rlimits, config.get("rlimits", {}))
    _step("no_new_privs", landlock.no_new_privs)
    _step("drop user", drop_user, config["uid"], config["gid"])
    if config.get("userns", True):
        _step("user namespace", own_user_namespace, config["uid"], config["gid"])
    _step("landlock", apply_landlock, config.get("landlock", []),
          config.get("landlock_required", True), config.get("landlock_scoped", False))
    _step("fds", close_other_fds, {status_fd} if status_fd is not None else set())
    os.umask(0o022)
    if status_fd is not None:
        os.write(status_fd, b"ok")  # confined and unprivileged: the worker may trust the rest
        os.close(status_fd)
    try:
        os.chdir(config.get("cwd") or "/")
    except OSError as exc:
        # The caller's cwd, not the sandbox, is wrong: report it like a shell would.
        print(f"arkevo-sandbox: cannot change directory to {config.get('cwd')}: {exc.strerror}",
              file=sys.stderr)
        os._exit(1)
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        print(f"arkevo-sandbox: {argv[0]}: {exc.strerror}", file=sys.stderr)
        os._exit(127)


USAGE = """usage: launcher.py CONFIG_JSON -- COMMAND...   (internal: run by the trial sandbox inside bwrap)

Applies one sandboxed process's limits (Landlock rules, cgroup, slot user, namespaces) from
CONFIG_JSON, then execs COMMAND. Not a command to run by hand (docs/sandbox.md).

exit codes:
  COMMAND's own, once it runs
  2  bad usage
  {failed}  the launch failed (the reason on stderr and the status fd)"""


def main() -> None:
    if sys.argv[1:] in (["--help"], ["-h"]):
        print(USAGE.format(failed=EXIT_LAUNCH_FAILED))
        sys.exit(0)
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        print(USAGE.format(failed=EXIT_LAUNCH_FAILED), file=sys.stderr)
        sys.exit(2)
    config = json.loads(sys.argv[1])
    try:
        launch(config, sys.argv[3:])
    except LaunchError as exc:
        message = f"arkevo-launcher: {exc}"
        status_fd = config.get("status_fd")
        if status_fd is not None:
            try:
                os.write(status_fd, message.encode())
            except OSError:
                pass
        print(message, file=sys.stderr)
        os._exit(EXIT_LAUNCH_FAILED)


if __name__ == "__main__":
    main()
