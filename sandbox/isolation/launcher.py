"""Runs inside bwrap, as root of the fresh mount/pid namespaces, right before the target command.

    python3 -I -S /opt/arkevo/launcher/launcher.py <config: marshal, hex> -- argv...

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

With `forkserver_fd` in the config the command is not exec'd here but forked, already
imported, by the worker's fork server into this launch's namespaces; it goes through the same
steps 1-7 itself before any of it runs (`hand_to_forkserver`, docs/sandbox.md "Fork server").

The status fd tells the worker how the launch went: `ok` once every step holds (then the
command is exec'd; a missing command or bad cwd is the command's own failure, reported on
stderr like a shell would), or `arkevo-launcher: <step>: <error>` — an infrastructure fault,
after which the launcher exits 125 without running anything.
"""

from __future__ import annotations

import marshal  # not json: its import (re) was ~6 ms of the launcher's ~19 ms of CPU
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


def drop_capabilities() -> None:
    """Empty effective, permitted and inheritable sets. An exec'd command loses the
    capabilities of its own user namespace at exec (it is not uid 0 there); a command forked by
    the fork server never execs, so it drops them here."""
    import ctypes

    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
    data = (ctypes.c_uint32 * 6)()  # two {effective, permitted, inheritable}: all zero
    if ctypes.CDLL(None, use_errno=True).capset(header, data) != 0:
        raise LaunchError(f"capset: {os.strerror(ctypes.get_errno())}")


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


def confine(config: dict, keep: set[int]) -> None:
    """Steps 1-6 and the fd clean-up (7) for the calling process; LaunchError on any failure.
    Also the fork server's (forkserver_process.py) for each process it forks into a sandbox."""
    _step("cgroups", join_cgroups, config.get("cgroup_fds", []))
    _step("netns", join_netns, config.get("netns_fd"))
    _step("rlimits", set_rlimits, config.get("rlimits", {}))
    _step("no_new_privs", landlock.no_new_privs)
    _step("drop user", drop_user, config["uid"], config["gid"])
    if config.get("userns", True):
        _step("user namespace", own_user_namespace, config["uid"], config["gid"])
    _step("landlock", apply_landlock, config.get("landlock", []),
          config.get("landlock_required", True), config.get("landlock_scoped", False))
    _step("fds", close_other_fds, keep)
    os.umask(0o022)


def launch(config: dict, argv: list[str]) -> None:
    status_fd = config.get("status_fd")
    keep = {status_fd} if status_fd is not None else set()
    if config.get("forkserver_fd") is not None and config.get("serve_forks"):
        agent = offer_forks(config)
        if agent is not None:  # else the command's `python3` is the real one, as without it
            keep.add(agent)
            os.set_inheritable(agent, True)
            os.environ[FORK_FD_VAR] = str(agent)
            os.environ["PATH"] = f"{FORK_PYTHON_DIR}:{os.environ.get('PATH', '')}"
    elif config.get("forkserver_fd") is not None:
        code = hand_to_forkserver(config, argv)
        if code is not None:
            os._exit(code)
        # The fork server could not take it (gone, or failed before forking): launch cold.
    confine(config, keep)
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


# The namespaces bwrap made for this launch, handed to the fork server's child in this order
# (after them: the trial's netns and the cgroup.procs fds; with the `go`: stdin, stdout,
# stderr and the status fd, or in serve mode the command's channel).
HANDED_NAMESPACES = (("mnt", os.CLONE_NEWNS), ("ipc", os.CLONE_NEWIPC), ("uts", os.CLONE_NEWUTS),
                     ("cgroup", os.CLONE_NEWCGROUP), ("pid", os.CLONE_NEWPID))


FORK_FD_VAR = "ARKEVO_FORK_FD"
FORK_PYTHON_DIR = "/opt/arkevo/launcher/forkpy"  # its `python3` (fork_python.py) asks first


# How long the fork server may take to fork the child that reads a launch: a stopped or wedged
# fork server costs a launch this, then it runs cold.
FORKSERVER_ANSWER_SEC = 5.0


def _send_to_forkserver(channel, config: dict, request: dict, late_fds: list[int]) -> bytes:
    """Send the launch to the fork server's child; its answer, or b"" (then launch cold).

    Two steps, so that a launch never runs twice: the child says `ready` once it has read the
    message, and acts only on our `go`. A child that is not ready in time is told nothing:
    it sees the channel close and exits without doing anything. The fds whose last holder
    ends a stream (stdio, the status fd, the command's channel) travel only with the `go`:
    sent earlier, they would sit in the queue of a fork server that never reads it, and the
    streams of a launch that went cold would never end."""
    import array
    import socket

    own = [os.open(f"/proc/self/ns/{name}", os.O_RDONLY | os.O_CLOEXEC)
           for name, _flag in HANDED_NAMESPACES]
    # The config without its fds: those travel as fds (the trial's netns, the cgroup.procs).
    message = {**request, "config": {k: v for k, v in config.items()
                                     if k not in ("status_fd", "netns_fd", "cgroup_fds")}}
    fds = [*own, config["netns_fd"], *config["cgroup_fds"]]
    try:
        channel.sendmsg([marshal.dumps(message, 4)],
                        [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
        channel.settimeout(FORKSERVER_ANSWER_SEC)
        if channel.recv(16) != b"ready":
            return b""
        channel.settimeout(None)
        channel.sendmsg([b"go"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", late_fds))])
        return channel.recv(64)
    except OSError:  # TimeoutError included
        return b""
    finally:
        for fd in own:
            os.close(fd)


def offer_forks(config: dict) -> int | None:
    """For an exec that runs Python scripts (the verifier's test.sh and its probes): have the
    fork server's child wait in this launch's namespaces to fork (up to MAX_LIVE_FORKS at once,
    forkserver_process.py) an imported interpreter for each `python3 script.py ...` the command runs (through fork_python.py, first
    on its PATH). Returns the command's end of that channel, or None (no fork server: the real
    python3 runs, as without it). The child never parses what the command sends: each forked
    process confines itself first with this launch's config, then reads its request."""
    import socket

    channel = socket.socket(fileno=config.pop("forkserver_fd"))
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        reply = _send_to_forkserver(channel, config, {"serve": True}, [theirs.fileno()])
    finally:
        theirs.close()
        channel.close()
    if reply != b"serving":
        ours.close()
        return None
    return ours.detach()


def hand_to_forkserver(config: dict, argv: list[str]) -> int | None:
    """Have the worker's fork server (a Python that has imported bpy once, outside any sandbox)
    fork the command into this launch's namespaces instead of exec'ing a fresh interpreter.

    This launcher stays root and unconfined here: it only passes its namespaces and fds on a
    socket the worker gave it, then waits. The fork server's child enters them, forks the
    command's process into the trial's pid namespace, and that process confines itself with the
    same `confine()` as a cold launch before any of the command runs (forkserver_process.py).
    Returns the command's exit code, or None when the fork server did not take the launch
    (nothing of the command ran; launch cold)."""
    import socket

    channel = socket.socket(fileno=config.pop("forkserver_fd"))
    for fd in config["cgroup_fds"]:
        os.write(fd, b"0")  # this launcher too: killing the launch's cgroup ends it with the command
    reply = _send_to_forkserver(channel, config, {"argv": argv, "env": dict(os.environ)},
                                [0, 1, 2, config["status_fd"]])
    if reply != b"started":
        channel.close()
        return None
    # The command's process holds its own copies: ours would keep its pipes open.
    for fd in (config["status_fd"], config["netns_fd"], *config["cgroup_fds"]):
        os.close(fd)
    null = os.open("/dev/null", os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    reply = channel.recv(64)
    words = reply.split()
    if len(words) == 2 and words[0] == b"exit":
        return int(words[1])
    print("arkevo-launcher: the fork server's child ended without the command's exit status",
          file=sys.stderr)
    return EXIT_LAUNCH_FAILED


USAGE = """usage: launcher.py CONFIG -- COMMAND...   (internal: run by the trial sandbox inside bwrap)

Applies one sandboxed process's limits (Landlock rules, cgroup, slot user, namespaces) from
CONFIG (marshal, hex: the worker writes it), then execs COMMAND. Not a command to run by hand (docs/sandbox.md).

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
    config = marshal.loads(bytes.fromhex(sys.argv[1]))  # the worker's own (trial.launcher_config)
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
