"""The namespaces one trial's processes share: network (only `lo`) and pid (with an init).

Network: a fresh namespace with `lo` up and nothing else — no other interface, no route. Every
exec and spawned process of the trial joins it (the launcher calls setns on the fd kept here),
so a server one of them starts on 127.0.0.1 (the Blender MCP host on :9876) is reachable by
the others, and by nothing outside: the host's loopback, other trials' loopbacks and every
external address are different namespaces or unroutable.

Pid: every exec's bwrap enters the same pid namespace (`--pidns`), like `docker exec` enters a
container: a process an exec leaves in the background keeps running for later execs (the MCP
host, a tmux server), sees only the trial's processes, and is reparented to the namespace's
init, a tiny reaper. Closing kills that init, and with it — by the kernel — every process of
the trial's pid namespace.

A root helper (kept as a child of the worker) creates both and forks the init; it and the init
die with the worker (PDEATHSIG) and when the worker closes the helper's stdin.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio

# asyncio only where the worker's side uses it (it has it imported anyway): the helper runs this
# file in a fresh `python -I -S` for every sandbox session, and importing asyncio was 52 of
# that process's 72 ms of CPU.

def _helper() -> None:
    """Runs as root in its own process (`python -I -S trialns.py`): new netns with `lo` up,
    new pidns whose pid 1 reaps orphans; prints "ready <init pid>", then waits for EOF on
    stdin and kills the init. Stdlib only, so the sandbox's ps shows just this file's name."""
    import ctypes
    import fcntl
    import signal
    import socket
    import struct

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: die with the worker
    if os.getppid() == 1:
        sys.exit(1)
    os.unshare(os.CLONE_NEWNET | os.CLONE_NEWPID)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        ifreq = fcntl.ioctl(s, 0x8913, struct.pack("16sH", b"lo", 0))  # SIOCGIFFLAGS
        flags = struct.unpack("16sH", ifreq)[1]
        fcntl.ioctl(s, 0x8914, struct.pack("16sH", b"lo", flags | 0x1))  # SIOCSIFFLAGS, IFF_UP
    pid = os.fork()
    if pid == 0:  # pid 1 of the trial: reap orphans until killed
        libc.prctl(1, signal.SIGKILL)
        os.closerange(0, 256)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
        while True:
            try:
                while os.waitpid(-1, os.WNOHANG)[0]:
                    pass
            except ChildProcessError:
                pass
            signal.sigwait({signal.SIGCHLD})
    sys.stdout.write(f"ready {pid}\n")
    sys.stdout.flush()
    sys.stdin.read()
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


class TrialNamespaceError(RuntimeError):
    pass


class TrialNamespaces:
    """Owns the trial's netns and pidns (fds) and their init until close().

    Async on purpose: the helper must be forked by the event loop's thread, not a pool
    thread, because PDEATHSIG fires when the *thread* that forked it exits.
    """

    def __init__(self) -> None:
        self.net_fd: int | None = None
        self.pid_fd: int | None = None
        self._helper: asyncio.subprocess.Process | None = None

    async def create(self) -> None:
        import asyncio

        helper = await asyncio.create_subprocess_exec(
            sys.executable, "-I", "-S", os.path.abspath(__file__), stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env={})
        self._helper = helper
        assert helper.stdout is not None and helper.stderr is not None  # PIPEs above
        try:
            words = (await asyncio.wait_for(helper.stdout.readline(), 30)).split()
        except TimeoutError:
            words = []
        if len(words) != 2 or words[0] != b"ready":
            await self.close()
            raise TrialNamespaceError(f"namespace helper failed: "
                                      f"{(await helper.stderr.read()).decode().strip()}")
        init_pid = int(words[1])
        self.net_fd = os.open(f"/proc/{init_pid}/ns/net", os.O_RDONLY | os.O_CLOEXEC)
        self.pid_fd = os.open(f"/proc/{init_pid}/ns/pid", os.O_RDONLY | os.O_CLOEXEC)

    async def close(self) -> None:
        """Kill the trial's init (the kernel then kills its whole pid namespace)."""
        import asyncio

        helper, self._helper = self._helper, None
        if helper is not None:
            if helper.stdin is not None:
                helper.stdin.close()
            try:
                await asyncio.wait_for(helper.wait(), 10)
            except TimeoutError:
                helper.kill()
                await helper.wait()
        for name in ("net_fd", "pid_fd"):
            fd = getattr(self, name)
            if fd is not None:
                os.close(fd)
                setattr(self, name, None)


HELP = """usage: python -I -S trialns.py   (internal: started by the trial sandbox, as root)

Creates one trial's network namespace (only lo, up) and pid namespace (with a reaping init),
prints "ready <init pid>" and holds them until its stdin closes. Not a command to run by hand.

exit codes:
  0  stdin closed: the namespaces are gone
  1  orphaned at start (its worker had already died)
  2  bad usage: any argument"""


if __name__ == "__main__":
    if sys.argv[1:]:  # it takes none: --help, or a mistake, does nothing else
        print(HELP, file=sys.stdout if sys.argv[1:] in (["--help"], ["-h"]) else sys.stderr)
        sys.exit(0 if sys.argv[1:] in (["--help"], ["-h"]) else 2)
    _helper()
