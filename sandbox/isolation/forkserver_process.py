"""The fork server: a Python that imported bpy (and the MCP server's libraries) once, outside
every sandbox, and forks an already-imported interpreter into a launch's sandbox on request.

    python -s sandbox/isolation/forkserver_process.py CONTROL_FD   (started by ForkServer)

Why: `import bpy` costs ~0.6-0.9 CPU-s, paid by every sandboxed Python that needs it (the
Blender MCP host of each trial) and the MCP server's imports ~0.4 more; a fork of a process
that paid them once costs a few milliseconds.

How a launch goes (docs/sandbox.md "Fork server"):

1. The worker sends this process one end of a fresh socket pair (SCM_RIGHTS on CONTROL_FD) and
   gives the other end to the launch's launcher inside bwrap (launcher.py).
2. This process forks a child (root, not yet in any sandbox) and goes back to waiting. The
   fork server itself never runs anything of anyone's and never reads what a sandbox sends.
3. The child reads the launcher's message: the command, its environment, the launcher's
   config, and fds — the mount, ipc, uts, cgroup and pid namespaces bwrap made for the launch,
   the trial's netns and the launch's cgroup.procs —, answers "ready" and goes on only at the
   launcher's "go", which brings stdio and the status fd (a launcher that waited too long has
   launched cold and closed the channel: then the child exits having done nothing). It enters those
   namespaces (setns), forks the command's process into the trial's pid namespace, answers
   "started", waits, and reports "exit <code>" back to the launcher, which exits with it.
4. The command's process runs the launcher's own `confine()` — cgroups, netns, rlimits,
   no_new_privs, the slot user, its own user namespace, Landlock, every other fd closed —
   writes "ok" on the status fd, and only then runs `python -m <module> args` in-process
   (runpy), with the launch's environment and a sys.path as the cold interpreter would build.

Stdlib + bpy only, like the launcher: it imports launcher.py, landlock.py and forkserver.py (the
worker's side, stdlib only: its `env_prefix`) beside it.
"""

from __future__ import annotations

import array
import contextlib
import ctypes
import importlib
import json
import marshal
import os
import signal
import socket
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)

import launcher  # noqa: E402
from forkserver import env_prefix  # noqa: E402 - the worker's own reading of the prefix

# What the processes it forks import: bpy for the Blender MCP host and the rule probes, the
# stock MCP server's libraries (not blender_mcp itself: it reads telemetry switches from the
# environment at import, which must be each launch's own).
PRELOAD = ("bpy", "mcp.server.fastmcp", "mcp.types", "anyio", "httpx", "pydantic")
_PR_SET_PDEATHSIG = 1
_PR_SET_NAME = 15
_libc = ctypes.CDLL(None, use_errno=True)
MAX_MESSAGE = 1 << 20
_SET_BY_PRELOAD: dict[str, str] = {}


def _receive(channel: socket.socket, max_fds: int) -> tuple[bytes, list[int]]:
    fds = array.array("i")
    message, ancillary, _flags, _addr = channel.recvmsg(
        MAX_MESSAGE, socket.CMSG_SPACE(max_fds * fds.itemsize))
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[:len(data) - (len(data) % fds.itemsize)])
    return message, list(fds)


def serve(control: socket.socket) -> dict | None:
    """The fork server's loop. Returns only in a forked command process, with its job."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # its children are reaped by the kernel
    while True:
        try:
            message, fds = _receive(control, 1)
        except InterruptedError:
            continue
        if not message and not fds:
            return None  # the worker closed the control socket
        if len(fds) != 1:
            for fd in fds:
                os.close(fd)
            continue
        pid = os.fork()
        if pid == 0:
            control.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            return _enter_and_fork(socket.socket(fileno=fds[0]))
        os.close(fds[0])


def _enter_and_fork(channel: socket.socket) -> dict | None:
    """In the fork server's child: enter the launch's namespaces and fork the command there, or
    (serve mode) fork one process per request of the command's `python3`. Exits (never returns)
    in this child; returns the job in a forked command process."""
    try:
        raw, fds = _receive(channel, 32)
        channel.send(b"ready")
        go, late = _receive(channel, 5)  # stdio, status fd [, a held exec's fork channel]
        if go != b"go":
            os._exit(0)  # the launcher gave up waiting and launched cold: do nothing
        request = marshal.loads(raw)  # the launcher's (root, before any command runs)
        names = launcher.HANDED_NAMESPACES
        ns_fds, (netns_fd, *cgroup_fds) = fds[:len(names)], fds[len(names):]
        for fd, (_name, flag) in zip(ns_fds, names):
            os.setns(fd, flag)  # the pid namespace applies to the forks below
            os.close(fd)
        if request.get("serve"):
            channel.send(b"serving")
            channel.close()
            return _serve_forks(socket.socket(fileno=late[0]), request["config"], netns_fd,
                                cgroup_fds)
        stdio, status_fd, agent = late[:3], late[3], late[4:5]
        rest = [netns_fd, *cgroup_fds, *late]
        pid = os.fork()
    except Exception:  # noqa: BLE001 - the launcher then launches cold: nothing ran
        os._exit(1)
    if pid == 0:
        channel.close()
        _become_confined(stdio, {**request["config"], "status_fd": status_fd,
                                 "netns_fd": netns_fd, "cgroup_fds": cgroup_fds}, status_fd,
                         keep=set(agent))
        os.write(status_fd, b"ok")
        os.close(status_fd)
        return {**request, "cwd": request["config"].get("cwd") or "/",
                "agent_fd": agent[0] if agent else None}
    for fd in rest:
        os.close(fd)
    # A held launch (the worker's own request) learns the command's pid, to signal it.
    channel.send(b"started %d" % pid if request.get("exec") else b"started")
    _pid, status = os.waitpid(pid, 0)
    try:
        channel.send(b"exit %d" % _exit_status(status))
    except OSError:
        pass  # the launcher is gone (its launch was killed)
    os._exit(0)


def _become_confined(stdio: list[int], config: dict, status_fd: int | None,
                     keep: frozenset[int] | set[int] = frozenset()) -> None:
    """In a forked command process: the launch's stdio, session and confinement, or exit 125."""
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    os.setsid()  # bwrap's --new-session
    for target, fd in enumerate(stdio):
        os.dup2(fd, target)
    try:
        launcher.confine(config, {*keep, *([status_fd] if status_fd is not None else [])})
        launcher.drop_capabilities()
    except launcher.LaunchError as exc:
        os.write(status_fd if status_fd is not None else 2, f"arkevo-launcher: {exc}".encode())
        os._exit(launcher.EXIT_LAUNCH_FAILED)


def _exit_status(status: int) -> int:
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code  # killed by signal N: 128+N, as a shell reports it


# Signals the command's `python3` passes on to the process forked for it (`timeout` sends TERM).
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)


# Forks one exec's python3 may have running at once; one more request runs the real python3.
# Bounds what a flood of requests can start outside the exec's own process limits (a forked
# process never execs, so RLIMIT_NPROC is not checked for it; its cgroup's pids.max is).
MAX_LIVE_FORKS = 4


def _serve_forks(agent: socket.socket, config: dict, netns_fd: int,
                 cgroup_fds: list[int]) -> dict | None:
    """Serve mode: fork a process per request until every holder of the command's end has
    closed it and the last fork has ended. A request is [its connection, stdin, stdout,
    stderr] and bytes this child never parses. Exits here; returns in a forked process."""
    import select

    live: dict[int, tuple[int, socket.socket | None]] = {}  # pidfd -> (pid, its connection)
    accepting = True
    while accepting or live:
        waiting = [*([agent] if accepting else []), *live,
                   *(conn for _pid, conn in live.values() if conn is not None)]
        readable, _, _ = select.select(waiting, [], [])
        for pidfd in [fd for fd in readable if isinstance(fd, int)]:
            pid, connection = live.pop(pidfd)
            _pid, status = os.waitpid(pid, 0)
            os.close(pidfd)
            if connection is not None:
                with contextlib.suppress(OSError):
                    connection.send(b"exit %d" % _exit_status(status))
                connection.close()
        for pidfd, (pid, connection) in list(live.items()):
            if connection is None or connection not in readable:
                continue
            try:
                said = connection.recv(64).split()
            except OSError:
                said = []
            if not said:  # its python3 is gone (killed): so is what it ran
                os.kill(pid, signal.SIGKILL)
                connection.close()
                live[pidfd] = (pid, None)  # reaped when it ends
            elif len(said) == 2 and said[0] == b"signal" and said[1].isdigit() \
                    and int(said[1]) in FORWARDED:
                os.kill(pid, int(said[1]))
        if agent not in readable:
            continue
        try:
            raw, fds = _receive(agent, 4)
        except OSError:
            raw, fds = b"", []
        if not raw and not fds:
            accepting = False  # the command and all that inherited the channel have ended
            continue
        if len(fds) != 4:
            for fd in fds:
                os.close(fd)
            continue
        connection = socket.socket(fileno=fds[0])
        if len(live) >= MAX_LIVE_FORKS:
            for fd in fds[1:]:
                os.close(fd)
            with contextlib.suppress(OSError):
                connection.send(b"busy")
            connection.close()
            continue
        pid = os.fork()
        if pid == 0:
            agent.close()
            connection.close()
            for other_pidfd, (_other, other_connection) in live.items():
                os.close(other_pidfd)
                if other_connection is not None:
                    other_connection.close()
            _become_confined(fds[1:], {**config, "netns_fd": netns_fd,
                                       "cgroup_fds": list(cgroup_fds)}, None)
            return {"raw": raw}  # parsed only now, confined
        for fd in fds[1:]:
            os.close(fd)
        live[os.pidfd_open(pid)] = (pid, connection)
        with contextlib.suppress(OSError):
            connection.send(b"started")
    os._exit(0)


def _request(job: dict) -> dict:
    """A serve-mode request, read in the confined process: {argv, env, cwd}, or exit 2."""
    if "raw" not in job:
        return job
    try:
        request = json.loads(job["raw"])
        argv, env, cwd = request["argv"], request["env"], request["cwd"]
        if not (isinstance(argv, list) and all(isinstance(a, str) for a in argv)
                and isinstance(env, dict) and all(isinstance(k, str) and isinstance(v, str)
                                                  for k, v in env.items())
                and isinstance(cwd, str)):
            raise ValueError("argv, env and cwd must be strings")
    except (ValueError, KeyError, TypeError) as exc:
        print(f"arkevo-forkserver: bad request: {exc}", file=sys.stderr)
        os._exit(2)
    return {"argv": argv, "env": env, "cwd": cwd}


def run(job: dict) -> None:
    """In the command's process, confined: become `python -m module args` (or, asked by a
    command's python3, `python3 script.py args`) and run it; a held launch's command is exec'd."""
    if job.get("exec"):
        _exec(job)
    job = _request(job)
    # `/usr/bin/env NAME=VALUE ... python ...` (a frozen clock's launch): run as env runs it
    prefix, argv = env_prefix(job["argv"])
    env = {**job["env"], **(prefix or {})}
    module = len(argv) >= 3 and argv[1] == "-m"
    script = len(argv) >= 2 and not argv[1].startswith("-") and argv[1].endswith(".py")
    if prefix is None or not (module or script):
        print(f"arkevo-forkserver: not a 'python -m module' or 'python script.py' command: "
              f"{argv[:3]}", file=sys.stderr)
        sys.exit(2)
    os.environ.clear()
    os.environ.update(env)
    for key, value in _SET_BY_PRELOAD.items():
        os.environ.setdefault(key, value)  # as the cold interpreter's own `import bpy` would
    try:
        os.chdir(job["cwd"])
    except OSError as exc:
        print(f"arkevo-sandbox: cannot change directory to {job['cwd']}: {exc.strerror}",
              file=sys.stderr)
        sys.exit(1)
    # sys.path as the cold interpreter builds it: the cwd (-m) or the script's folder, then
    # PYTHONPATH, then the interpreter's own.
    own = [entry for entry in sys.path if entry != _HERE]
    extra = [entry for entry in env.get("PYTHONPATH", "").split(os.pathsep) if entry]
    first = os.getcwd() if module else os.path.dirname(os.path.abspath(argv[1]))
    sys.path[:] = [first, *extra, *own]
    sys.dont_write_bytecode = bool(env.get("PYTHONDONTWRITEBYTECODE"))
    fresh_stdio()
    restart_thread_pools()
    if "bpy" in sys.modules:
        # Blender made its session temp folder at import, outside this sandbox: a new one
        # under the launch's TMPDIR, as a cold start would.
        prefs = sys.modules["bpy"].context.preferences.filepaths
        prefs.temporary_directory = env.get("TMPDIR", "/tmp")
    # ps shows the fork server's command line for it; its name at least says what runs.
    name = argv[2] if module else os.path.basename(argv[1])
    _libc.prctl(_PR_SET_NAME, name.encode()[:15])
    _exit(run_as_main(argv))


def fresh_stdio() -> None:
    """Fresh stdio objects over fds 0-2 (a fork's, set up for it; the server's were never used)."""
    sys.stdin = sys.__stdin__ = open(0, "r", closefd=False)  # type: ignore[misc]
    sys.stdout = sys.__stdout__ = open(1, "w", closefd=False)  # type: ignore[misc]
    sys.stderr = sys.__stderr__ = open(2, "w", buffering=1, closefd=False,  # type: ignore[misc]
                                       errors="backslashreplace")


def restart_thread_pools() -> None:
    for function, args in _restart:
        function(*args)  # the pools the fork server stopped before forking


def run_as_main(argv: list[str]) -> int:
    """`python -m module args` or `python script.py args` (argv[0] the interpreter) in this
    process, as `__main__`; the exit code the interpreter would give."""
    import runpy

    try:
        if argv[1] == "-m":
            sys.argv = [argv[0], *argv[3:]]
            runpy.run_module(argv[2], run_name="__main__", alter_sys=True)
        else:
            sys.argv = argv[1:]
            runpy.run_path(argv[1], run_name="__main__")
        return 0
    except SystemExit as exc:
        return _exit_code(exc.code)
    except BaseException:  # noqa: BLE001 - reported as the interpreter would, exit 1
        sys.excepthook(*sys.exc_info())
        return 1


def _exec(job: dict) -> None:
    """A held launch's command (trial.TrialSandbox.launch without bwrap: the worker sent it),
    exec'd as the launcher execs one: the launch's environment, its cwd, PATH lookup."""
    argv, env = job["argv"], dict(job["env"])
    if job.get("agent_fd") is not None:  # serve_forks: its python3 asks the bpy fork server
        os.set_inheritable(job["agent_fd"], True)
        env[launcher.FORK_FD_VAR] = str(job["agent_fd"])
        env["PATH"] = f"{launcher.FORK_PYTHON_DIR}:{env.get('PATH', '')}"
    try:
        os.chdir(job["cwd"])
    except OSError as exc:
        os.write(2, f"arkevo-sandbox: cannot change directory to {job['cwd']}: {exc.strerror}\n".encode())
        os._exit(1)
    try:
        os.execvpe(argv[0], argv, env)
    except OSError as exc:
        os.write(2, f"arkevo-sandbox: {argv[0]}: {exc.strerror}\n".encode())
        os._exit(127)


def _exit_code(value: object) -> int:
    """What the interpreter makes of SystemExit's code."""
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    print(value, file=sys.stderr)
    return 1


def _exit(code: int) -> None:
    """The interpreter's exit up to its atexit handlers (non-daemon threads joined, handlers
    run, stdio flushed), then _exit. The C-level finalisation that follows in a cold process
    is skipped: in a fork it took 0.14 s against 0.02 s (1.15 s before the fork server stopped
    the thread pools), and what it would do — free memory, remove Blender's session temp folder
    in the slot's /tmp — the process's end and the slot's wipe do anyway."""
    import atexit
    import threading

    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001, S110 - a closed pipe: nothing left to say
            pass
    os._exit(code)


# C++ entry points of the thread pools `import bpy` starts (their libraries ship in bpy's wheel):
# oneTBB's task_scheduler_handle get() and finalize(handle, finalize_nothrowing = 1), which
# returns whether the workers ended; OpenEXR's IlmThread global pool and its thread count.
_TBB_GET = "_ZN3tbb6detail2r13getERNS0_2d121task_scheduler_handleE"
_TBB_FINALIZE = "_ZN3tbb6detail2r18finalizeERNS0_2d121task_scheduler_handleEl"
_ILM_POOL = "_ZN13IlmThread_3_410ThreadPool16globalThreadPoolEv"
_ILM_COUNT = "_ZNK13IlmThread_3_410ThreadPool10numThreadsEv"
_ILM_SET = "_ZN13IlmThread_3_410ThreadPool13setNumThreadsEi"
_restart: list = []  # (function, args) each fork calls to start a pool again


def _threads() -> int:
    return len(os.listdir("/proc/self/task"))


def _loaded(name: str) -> str | None:
    found = sorted({line.split()[-1] for line in open("/proc/self/maps") if f"/{name}" in line})
    return found[0] if found else None


def _release_thread_pools(baseline: int) -> str | None:
    """End the worker threads of the pools the imports started, so that the fork server is
    down to the threads it had before them; None, or why that could not be done.

    A fork has only the thread that forked. A pool started before the fork stays in its memory
    with workers that do not exist: oneTBB's then runs every parallel job of the fork (a Cycles
    render, the depsgraph) on one thread (a render 2.0 s forked against 1.1 s exec'd), and
    OpenEXR's waits forever for them (saving or loading an .exr hung). oneTBB starts a pool
    again by itself at the fork's first parallel job; OpenEXR's is started again, with the
    same number of threads, before the fork runs anything (`_restart`). `baseline` is the
    count before the imports (numpy's BLAS threads; a matrix product in a fork works): any
    other thread still alive here belongs to a pool this does not know, and forking
    would be unsafe."""
    if (path := _loaded("libtbb.so")) is not None:
        try:
            tbb = ctypes.CDLL(path, mode=os.RTLD_NOLOAD)
            get, finalize = getattr(tbb, _TBB_GET), getattr(tbb, _TBB_FINALIZE)
        except (OSError, AttributeError) as exc:
            return f"oneTBB's finalize is not available in {path}: {exc}"
        finalize.restype = ctypes.c_bool
        handle = ctypes.c_void_p()
        get(ctypes.byref(handle))
        if not finalize(ctypes.byref(handle), ctypes.c_long(1)):
            return "oneTBB's worker threads did not end (finalize returned false)"
    if (path := _loaded("libIlmThread")) is not None:
        try:
            ilm = ctypes.CDLL(path, mode=os.RTLD_NOLOAD)
            pool, count, set_count = (getattr(ilm, n) for n in (_ILM_POOL, _ILM_COUNT, _ILM_SET))
        except (OSError, AttributeError) as exc:
            return f"OpenEXR's thread pool cannot be stopped through {path}: {exc}"
        pool.restype, count.restype = ctypes.c_void_p, ctypes.c_int
        count.argtypes, set_count.argtypes = [ctypes.c_void_p], [ctypes.c_void_p, ctypes.c_int]
        global_pool = pool()
        threads = count(global_pool)
        set_count(global_pool, 0)
        _restart.append((set_count, (global_pool, threads)))
    if (left := _threads()) != baseline:
        return (f"{left - baseline} thread(s) of an unknown pool still run after the imports; "
                "a fork would have them in memory without them")
    return None


USAGE = """usage: forkserver_process.py CONTROL_FD [--bare]   (internal: started by the worker, as root)

The sandbox's fork server: imports bpy and the MCP server's libraries once, then forks an
already-imported interpreter into a launch's sandbox for each channel the worker sends on
CONTROL_FD (docs/sandbox.md "Fork server"). --bare imports nothing: the worker's held launches
(commands exec'd in a sandbox's namespaces without a bwrap each) are forked from it, a small
process. Not a command to run by hand.

exit codes:
  0  the worker closed CONTROL_FD
  1  orphaned at start (its worker had already died)
  2  bad usage
  3  unusable: a thread pool of the imports could not be stopped before forking (said on
     CONTROL_FD)"""


def main() -> None:
    if sys.argv[1:] in (["--help"], ["-h"]):
        print(USAGE)
        sys.exit(0)
    args = sys.argv[1:]
    bare = args[1:] == ["--bare"]
    if not (len(args) == 1 or bare) or not args[0].isdigit():
        print(USAGE, file=sys.stderr)
        sys.exit(2)
    control = socket.socket(fileno=int(args[0]))
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)  # dies with the worker
    if os.getppid() == 1:
        sys.exit(1)
    if not bare:
        _preload(control)
    sys.stdout.flush()
    sys.stderr.flush()
    control.send(b"ready")
    job = serve(control)
    if job is None:
        return
    run(job)


def _preload(control: socket.socket) -> None:
    """Import what the forks run (PRELOAD) and stop the thread pools the imports started."""
    problem = preload(PRELOAD)
    if problem is not None:
        control.send(f"unusable: {problem}".encode())
        sys.exit(3)


def preload(names: tuple[str, ...]) -> str | None:
    """Import `names` and stop the thread pools the imports started (what a fork of this
    process may then run); None, or why forking would be unsafe. The variables the imports set
    go to each fork (_SET_BY_PRELOAD)."""
    try:
        import numpy  # noqa: F401 - bpy imports it anyway: its BLAS threads count as a baseline
    except ImportError:
        pass
    baseline = _threads()
    before = dict(os.environ)
    for name in names:
        importlib.import_module(name)
    # Started under a frozen clock (libfaketime, FAKETIME_NO_CACHE: it reads FAKETIME at every
    # call), the imports seed what Blender seeds from the clock as a cold frozen Blender does;
    # oneTBB's finalize waits on the clock, so it runs on the real one.
    frozen = os.environ.pop("FAKETIME", None)
    problem = _release_thread_pools(baseline)
    if frozen is not None:
        os.environ["FAKETIME"] = frozen
    if problem is None:
        # bpy's import sets a few variables (MaterialX search paths): each fork gets them back.
        _SET_BY_PRELOAD.update({k: v for k, v in os.environ.items() if before.get(k) != v})
    return problem


if __name__ == "__main__":
    main()
