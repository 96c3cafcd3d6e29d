"""Held launches: a sandbox's commands forked into namespaces the worker holds, no bwrap each.

A cold launch (trial.py) runs bwrap, which builds the sandbox's view (a fresh mount namespace
with every bind, ipc and uts namespaces), then the launcher, a fresh Python, inside it: ~33 ms
of wall and ~25 ms of CPU for every exec — Harbor's `test -d`, `rm -f`, `chmod` and the tar of
each upload and download, about ten a trial. The view is the same for every launch of one
sandbox, so it is built once:

1. `HeldNamespaces.create` launches a holder the cold way (`cat`, confined like any command)
   and, once its launcher reported every layer in place, opens the holder's mount, ipc, uts,
   cgroup and pid namespaces (`/proc/<pid>/ns/*`, as root), then kills it. The fds keep the
   namespaces, with their mounts, for the sandbox's life; nothing of the sandbox's runs in them
   meanwhile.
2. `launch` sends a command to the worker's bare fork server (forkserver_process.py --bare: a
   small Python that imports nothing) on a fresh channel, with those namespace fds, the trial's
   netns, the launch's cgroup.procs fds and the launcher's config. The server's child enters
   the namespaces and forks the command's process into the trial's pid namespace; that process
   runs the launcher's own `confine()` (cgroup, netns, rlimits, no_new_privs, the slot user, its
   own user namespace, Landlock, every other fd closed), writes `ok` on the status fd, and only
   then execs the command. The child reports the command's exit status on the channel.

What differs from a cold launch: the launches of one sandbox share one mount namespace (so one
/dev/shm, as `docker exec`s of one container do); every other layer is per launch as before.
The worker sends the request itself, so the fork server's child acts only on what the worker
wrote. A fork server that is not ready, or a child that never forks the command, costs a cold
launch, never a second run (docs/sandbox.md "Held launches").
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import marshal
import os
import signal
import socket

# As launcher.HANDED_NAMESPACES, in its order (the launcher runs inside the sandbox with the
# stdlib only, so the worker does not import it; tests/unit/test_held_launch.py checks both).
NAMESPACES = ("mnt", "ipc", "uts", "cgroup", "pid")
EXIT_LAUNCH_FAILED = 125  # launcher.EXIT_LAUNCH_FAILED
ANSWER_SEC = 5.0  # launcher.FORKSERVER_ANSWER_SEC: a wedged fork server costs a cold launch


class HeldNamespaces:
    """The open namespace fds of one sandbox's view (see the module's docstring)."""

    def __init__(self, fds: list[int]) -> None:
        self.fds = fds

    @classmethod
    def open_from(cls, pid: int) -> HeldNamespaces:
        fds: list[int] = []
        try:
            for name in NAMESPACES:
                fds.append(os.open(f"/proc/{pid}/ns/{name}", os.O_RDONLY | os.O_CLOEXEC))
        except OSError:
            for fd in fds:
                os.close(fd)
            raise
        return cls(fds)

    def close(self) -> None:
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.fds = []


class HeldProcess:
    """A held launch's command, as much of asyncio's Process as the sandbox uses: pid,
    returncode, wait(), kill(), and a stderr stream when one was asked for."""

    def __init__(self, channel: socket.socket, pid: int,
                 stderr: asyncio.StreamReader | None) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self.stdin = None
        self.stdout = None
        self.stderr = stderr
        self._channel = channel
        self._waiter = asyncio.ensure_future(self._exit_status())

    async def _exit_status(self) -> int:
        loop = asyncio.get_running_loop()
        try:
            said = await loop.sock_recv(self._channel, 64)
        except OSError:
            said = b""
        finally:
            self._channel.close()
        words = said.split()
        # No status: the fork server's child died with the command unreported (killed).
        self.returncode = (int(words[1]) if len(words) == 2 and words[0] == b"exit"
                           and words[1].lstrip(b"-").isdigit() else -signal.SIGKILL)
        return self.returncode

    async def wait(self) -> int:
        return await asyncio.shield(self._waiter)

    def kill(self) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)


def _handshake(channel: socket.socket, message: bytes, fds: list[int],
               late: list[int]) -> list[bytes] | None:
    """Blocking (run in a thread): the request, `ready`, `go` with the late fds, the answer's
    words; None when the fork server's child never took it (then nothing ran)."""
    try:
        channel.sendmsg([message], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
        channel.settimeout(ANSWER_SEC)
        if channel.recv(16) != b"ready":
            return None
        channel.settimeout(None)
        channel.sendmsg([b"go"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", late))])
        return channel.recv(64).split()
    except OSError:  # TimeoutError included: the child is told nothing and exits
        return None


async def offer_forks(channel_fd: int, held: HeldNamespaces, *, config: dict, netns_fd: int,
                      cgroup_fds: list[int]) -> int | None:
    """launcher.offer_forks for a held launch: the bpy fork server's child (on `channel_fd`,
    ours to close) waits in the held namespaces to fork each `python3 script.py` the command
    runs. Returns the command's end of that channel, or None (the real python3 runs)."""
    channel = socket.socket(fileno=channel_fd)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        said = await asyncio.to_thread(_handshake, channel, marshal.dumps({"serve": True, "config": config}, 4),
                                       [*held.fds, netns_fd, *cgroup_fds], [theirs.fileno()])
    finally:
        theirs.close()
        channel.close()
    if said != [b"serving"]:
        ours.close()
        return None
    return ours.detach()


async def launch(channel_fd: int, held: HeldNamespaces, *, argv: list[str], env: dict[str, str],
                 config: dict, netns_fd: int, cgroup_fds: list[int], stdio: list[int],
                 status_fd: int, agent_fd: int | None,
                 stderr: asyncio.StreamReader | None) -> HeldProcess | None:
    """Have the bare fork server's child (on `channel_fd`, ours to close) fork argv into the
    held namespaces, confined with `config` (the launcher's). stdio: the command's stdin,
    stdout and stderr fds; agent_fd: the bpy fork server's channel for a serve_forks exec.
    Returns the running command, or None when it was not forked (launch cold instead)."""
    channel = socket.socket(fileno=channel_fd)
    message = marshal.dumps({"argv": list(argv), "env": dict(env), "exec": True,
                             "config": config}, 4)
    late = [*stdio, status_fd, *([agent_fd] if agent_fd is not None else [])]
    said = await asyncio.to_thread(_handshake, channel, message,
                                   [*held.fds, netns_fd, *cgroup_fds], late)
    if not (said and len(said) == 2 and said[0] == b"started" and said[1].isdigit()):
        channel.close()
        return None
    channel.setblocking(False)
    return HeldProcess(channel, int(said[1]), stderr)
