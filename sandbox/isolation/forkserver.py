"""The worker's side of the fork server (forkserver_process.py): start it, hand it launches.

One fork server per worker process and interpreter, started as a gpu worker starts
(trial.start_fork_server) or else on first use (a script run's: at the third,
script_run.SCRIPT_RUNS_BEFORE_A_FORK_SERVER), and kept until the worker exits (it dies with
the worker: PDEATHSIG). `channel()` gives a launch the launcher's end
of a fresh socket pair whose other end went to the fork server, or None when there is no ready
fork server — then the launch runs cold, as it always could. A fork server that died is started
again at the next launch; the launches meanwhile run cold (counted in `counts`).

What is forked: a spawn of `<the sandbox's python> -m <module> args`, the form the Blender MCP
host and the stock MCP server are spawned in, a worker's script run of `<the sandbox's python>
/tests/<script>.py args` (sandbox/script_run.py: evidence renders, warm probes; `eligible`) --
behind `/usr/bin/env NAME=VALUE ...` (a frozen clock) by a fork server started under exactly
those variables (`preload`) --, and a verifier exec's `python3 script.py` (launcher.offer_forks,
fork_python.py). Everything else is exec'd as before.
"""

from __future__ import annotations

import array
import logging
import os
import shutil
import socket
import subprocess
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

logger = logging.getLogger(__name__)

_PROCESS = Path(__file__).resolve().parent / "forkserver_process.py"


class ForkServer:
    def __init__(self, python: str, *, home: str, tmp_dir: Path, bare: bool = False,
                 preload: dict[str, str] | None = None) -> None:
        self.python = python
        # Variables it runs under from its start, a preload among them (a frozen clock's
        # libfaketime): it forks only `/usr/bin/env <exactly these> python ...` commands.
        self.preload = dict(preload or {})
        self.home = home
        self.tmp_dir = tmp_dir
        self.bare = bare  # imports nothing: forks the held launches' commands (trial.py)
        self._process: subprocess.Popen | None = None
        self._control: socket.socket | None = None
        self._ready = False
        self.unusable: str | None = None  # why this interpreter cannot have a fork server
        self._lock = threading.Lock()
        self.counts: Counter[str] = Counter()  # started, forked, cold (no ready server), died
        self.asked = 0  # launches that asked for a channel

    def eligible(self, argv: list[str]) -> bool:
        """`<the sandbox's python> -m module args` or `<the sandbox's python> script.py args`, the
        forms forkserver_process.run runs (a spawn; a worker's script run); for a server with a
        preload, the same behind `/usr/bin/env` and exactly its variables."""
        prefix, command = env_prefix(argv)
        if prefix != self.preload:
            return False
        if len(command) < 2 or command[0] != self.python:
            return False
        return (command[1] == "-m" and len(command) >= 3) or \
            (not command[1].startswith("-") and command[1].endswith(".py"))

    def start(self) -> None:
        """Start the fork server if none runs; returns at once (it is ready ~1 s later). From
        any thread: the process is started by this process's keeper thread (`_in_keeper`)."""
        with self._lock:
            if self.unusable is not None:
                return
            if self._process is not None and self._process.poll() is None and not self._wedged():
                return
            if self._process is not None:
                self.counts["died"] += 1
                logger.warning("the sandbox fork server %s; starting another",
                               f"exited ({self._process.returncode})"
                               if self._process.poll() is not None else "is stopped")
                self._discard()
            self.tmp_dir.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            _remove_stale(self.tmp_dir.parent)
            if self.tmp_dir.exists():
                shutil.rmtree(self.tmp_dir, ignore_errors=True)
            self.tmp_dir.mkdir()
            self.tmp_dir.chmod(0o700)
            log = open(self.tmp_dir.parent / f"{self.tmp_dir.name}.log", "ab")
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            try:
                # A clean environment: nothing of the worker's (API keys) may be in the memory
                # every sandboxed fork inherits. HOME is the sandbox's, which Blender caches.
                self._process = _in_keeper(
                    subprocess.Popen, [self.python, "-s", str(_PROCESS), str(theirs.fileno()),
                     *(["--bare"] if self.bare else [])],
                    pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL, stderr=log, cwd="/",
                    env={"PATH": "/usr/bin:/bin", "HOME": self.home, "LANG": "C.UTF-8",
                         "TMPDIR": str(self.tmp_dir), "PYTHONDONTWRITEBYTECODE": "1", **self.preload})
            finally:
                theirs.close()
                log.close()
            self._control = ours
            self._ready = False
            self.counts["started"] += 1

    def _wedged(self) -> bool:
        """Stopped or traced: it would take launches and fork nothing (each such launch waits
        launcher.FORKSERVER_ANSWER_SEC, then runs cold, with its stdio held in the queue)."""
        assert self._process is not None
        try:
            with open(f"/proc/{self._process.pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return False
        return state in ("T", "t")

    def _discard(self) -> None:
        if self._control is not None:
            self._control.close()
            self._control = None
        if self._process is not None:
            if self._process.poll() is None:
                self._process.kill()
            self._process.wait()
            self._process = None
        self._ready = False

    def _check_ready(self) -> bool:
        if self._ready:
            return True
        assert self._control is not None
        try:
            said = self._control.recv(16, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return False
        except OSError:
            said = b""
        if said.startswith(b"unusable"):
            # A thread pool it could not stop would be dead in every fork: launch cold from now on.
            self.unusable = said.decode(errors="replace")
            logger.warning("the sandbox fork server is off for %s: %s", self.python, self.unusable)
        self._ready = said == b"ready"
        return self._ready

    def channel(self, start_after: int = 0) -> int | None:
        """The launcher's end of a channel to a ready fork server (an fd the caller passes to
        bwrap and closes), or None: launch cold. Starts the fork server when there is none --
        once `start_after` launches have asked for it (and run cold): a script run's command
        (`seed measure` builds, applies and probes once each) starts none it would not use."""
        with self._lock:
            self.asked += 1
            if self._process is None and self.asked <= start_after:
                self.counts["cold"] += 1
                return None
        self.start()
        with self._lock:
            if self.unusable is not None or self._control is None or not self._check_ready():
                self.counts["cold"] += 1
                return None
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            try:
                self._control.sendmsg([b"fork"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                                   array.array("i", [theirs.fileno()]))])
            except OSError:
                ours.close()
                self.counts["cold"] += 1
                return None
            finally:
                theirs.close()
            self.counts["forked"] += 1
            return ours.detach()

    def wait_ready(self, timeout: float = 60.0) -> bool:
        """Block until the fork server is ready (tests, benches); False if it is not."""
        import select
        self.start()
        with self._lock:
            if self.unusable is not None:
                return False
            if self._ready:
                return True
            assert self._control is not None
            readable, _, _ = select.select([self._control], [], [], timeout)
            return bool(readable) and self._check_ready()

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def close(self) -> None:
        with self._lock:
            self._discard()


def _remove_stale(folder: Path) -> None:
    """Temp folders and logs of fork servers whose worker (tmp-<pid>) no longer runs."""
    if not folder.is_dir():
        return
    for entry in folder.glob("tmp-*"):
        pid = entry.name.removeprefix("tmp-").removesuffix(".log").split("-")[0]  # tmp-<pid>[-bare|-preload<n>]
        if pid.isdigit() and int(pid) != os.getpid() and not Path(f"/proc/{pid}").exists():
            if entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)


# PDEATHSIG (forkserver_process.py) fires when the *thread* that started the fork server exits,
# and launches come from short-lived threads too (a blocking script run's own event loop): every
# fork server is started by one thread that lives as long as the process.
_KEEPER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="arkevo-forkserver-keeper")


def _in_keeper(function, *args, **kwargs):
    return _KEEPER.submit(function, *args, **kwargs).result()


_SERVERS: dict[tuple, ForkServer] = {}
# Its temp folder (Blender's session folder of the import) and log: root's, host-wide.
STATE_DIR = Path("/run/arkevo-sandbox/forkserver")


ENV = "/usr/bin/env"


def env_prefix(argv: list[str]) -> tuple[dict[str, str] | None, list[str]]:
    """(the variables of a leading `/usr/bin/env NAME=VALUE ...`, the command after them); ({},
    argv) for a command without one; (None, argv) for an env command of another form (an
    option, a name that is none): never forked. forkserver_process.run reads it with this too."""
    if not argv or argv[0] != ENV:
        return {}, argv
    found: dict[str, str] = {}
    for i, word in enumerate(argv[1:], 1):
        name, eq, value = word.partition("=")
        if not eq:
            return (found, argv[i:]) if found else (None, argv)
        if not name.isidentifier():
            return None, argv
        found[name] = value
    return None, argv



def fork_server(python: str, *, home: str, bare: bool = False,
                preload: dict[str, str] | None = None) -> ForkServer:
    """This worker process's fork server for that interpreter (made, not started): one for
    every sandbox of the process, whatever their slot folders. bare: the one that imports
    nothing, for held launches. preload: one started under these variables (a frozen clock)."""
    key = (python, home, bare, tuple(sorted((preload or {}).items())))
    server = _SERVERS.get(key)
    if server is None:
        name = f"tmp-{os.getpid()}{'-bare' if bare else ''}{f'-preload{len(_SERVERS)}' if preload else ''}"
        server = _SERVERS[key] = ForkServer(python, home=home, tmp_dir=STATE_DIR / name, bare=bare,
                                            preload=preload)
    return server
