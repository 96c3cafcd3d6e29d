"""The tests' own bpy scripts (scenes a test builds, snapshots, checks), forked from one process
that imported bpy once, not started cold each: `run_bpy(script, *args)`.

Why: a cold `python script.py` that imports bpy pays ~0.9 CPU-s before its first line, and the
suite runs a few hundred such scripts whose own work is a fraction of that. A fork of a process
that paid it once costs a few milliseconds. These are the tests' own scripts, run unisolated as
`subprocess.run([sys.executable, script, ...])` ran them: nothing from outside a test runs here
(a seed's, an author's or a solver's code goes through the sandbox, forked there by the
sandbox's own fork server, docs/sandbox.md).

The template (`python tests/bpy_forks.py`) imports bpy and stops the thread pools the import
started with the sandbox fork server's own `preload` (a fork has only the thread that forked, so
a pool left running would be a pool of threads that do not exist), then for each job it reads
forks a child that runs `script` as `python script args` would (the fork server's
`run_as_main`): `__main__`, its argv,
sys.path from the script's folder, the caller's environment and cwd, stdin from /dev/null,
stdout and stderr into files the caller reads; it exits as the interpreter would (atexit
handlers run, stdio flushed). One job at a time per template; one template per test process,
started at its first job and ended with that process. ARKEVO_TEST_BPY_FORKS=0 runs every script
cold; so does a script the template cannot take (it is gone, or it could not stop a pool).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

SWITCH = "ARKEVO_TEST_BPY_FORKS"
FORKSERVER = Path(__file__).resolve().parents[1] / "sandbox" / "isolation" / "forkserver_process.py"
# What importing forkserver_process brings in beside it (stdlib modules of sandbox/isolation):
# no script of the tests' may find them already imported.
HELPERS = ("forkserver_process", "launcher", "forkserver", "landlock")
HERE = str(Path(__file__).resolve().parent)


class Template:
    """The client's side: the template process and one job at a time."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.proc: subprocess.Popen | None = None
        self.broken = False

    def _start(self) -> bool:
        self.proc = subprocess.Popen([sys.executable, __file__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1, cwd=HERE)
        ready = json.loads(self.proc.stdout.readline() or "{}")  # type: ignore[union-attr]
        if not ready.get("ready"):
            self.stop()
            self.broken = True
            return False
        atexit.register(self.stop)
        return True

    def stop(self) -> None:
        """Ends the template: at the end of its jobs it removes Blender's session folder."""
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        with contextlib.suppress(OSError):
            proc.stdin.close()  # type: ignore[union-attr]
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def run(self, argv: list[str], timeout: float) -> subprocess.CompletedProcess | None:
        """The script's result; None when the template cannot take it (then run it cold)."""
        with self.lock:
            if self.broken or (self.proc is None and not self._start()):
                return None
            assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
            with tempfile.TemporaryDirectory(prefix="arkevo-bpy-fork-") as tmp:
                out, err = Path(tmp) / "stdout", Path(tmp) / "stderr"
                job = {"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ), "stdout": str(out),
                       "stderr": str(err)}
                try:
                    self.proc.stdin.write(json.dumps(job) + "\n")
                    self.proc.stdin.flush()
                    pid = json.loads(self.proc.stdout.readline())["pid"]
                except (OSError, ValueError, KeyError):
                    self.stop()
                    self.broken = True
                    return None
                code = self._wait(argv, pid, timeout)
                return subprocess.CompletedProcess(argv, code, out.read_text(errors="replace"),
                                                   err.read_text(errors="replace"))

    def _wait(self, argv: list[str], pid: int, timeout: float) -> int:
        assert self.proc is not None and self.proc.stdout is not None
        timed_out = threading.Event()

        def kill() -> None:
            timed_out.set()
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            reply = json.loads(self.proc.stdout.readline() or "{}")
        finally:
            timer.cancel()
        if "code" not in reply:
            self.stop()
            self.broken = True
            raise RuntimeError(f"the bpy fork template ended while {argv[1]} ran (pid {pid})")
        if timed_out.is_set():
            raise subprocess.TimeoutExpired(argv, timeout)
        return reply["code"]


_TEMPLATE = Template()


def run_bpy_script(*argv: str | Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """`subprocess.run([sys.executable, script, *args], capture_output=True, text=True)` for a
    bpy script: forked from the template where it can be, cold otherwise."""
    command = [sys.executable, *map(str, argv)]
    if os.environ.get(SWITCH, "1") != "0" and str(argv[0]).endswith(".py"):
        done = _TEMPLATE.run(command, timeout)
        if done is not None:
            return done
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def run_bpy(*argv: str | Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run a bpy script and fail the test with its output if it fails."""
    done = run_bpy_script(*argv, timeout=timeout)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
    return done


# -- the template (stdlib + bpy) ------------------------------------------------------------------

def _serve() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("forkserver_process", FORKSERVER)
    assert spec is not None and spec.loader is not None
    fsp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fsp)
    reply = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # what bpy prints is no reply
    problem = fsp.preload(("bpy",))  # the fork server's own: bpy imported, its pools stopped
    reply.write(json.dumps({"ready": problem is None, "problem": problem}) + "\n")
    if problem is not None:
        return
    import bpy

    # sys.path as the import left it (bpy's folders in front of the script's and after the
    # interpreter's, as in a cold run), the script's folder where this file's is
    after_import = [entry for entry in sys.path if entry != fsp._HERE]
    for line in sys.stdin:
        job = json.loads(line)
        pid = os.fork()
        if pid == 0:
            try:  # the child never returns to this loop, whatever happens before its script ends
                reply.close()
                _child(job, fsp, after_import, bpy.app.tempdir)
            finally:
                os._exit(1)
        reply.write(json.dumps({"pid": pid}) + "\n")
        _, status = os.waitpid(pid, 0)
        reply.write(json.dumps({"code": os.waitstatus_to_exitcode(status)}) + "\n")
    shutil.rmtree(bpy.app.tempdir, ignore_errors=True)  # made at the import, shared by the forks


def _child(job: dict, fsp, after_import: list[str], template_tempdir: str) -> None:
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.dup2(os.open(job["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 1)
    os.dup2(os.open(job["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 2)
    os.environ.clear()
    os.environ.update(job["env"])
    for key, value in fsp._SET_BY_PRELOAD.items():
        os.environ.setdefault(key, value)  # as the cold interpreter's own `import bpy` would
    os.chdir(job["cwd"])
    script = job["argv"][1]
    extra = [entry for entry in job["env"].get("PYTHONPATH", "").split(os.pathsep) if entry]
    at = after_import.index(HERE)
    sys.path[:] = [*after_import[:at], os.path.dirname(os.path.abspath(script)), *extra, *after_import[at + 1:]]
    for name in HELPERS:
        sys.modules.pop(name, None)
    fsp.fresh_stdio()
    fsp.restart_thread_pools()  # the pools the template stopped before forking
    code = fsp.run_as_main(job["argv"])
    import bpy

    if bpy.app.tempdir != template_tempdir:  # a new session folder (factory settings read):
        shutil.rmtree(bpy.app.tempdir, ignore_errors=True)  # removed at exit, as a cold one's is
    fsp._exit(code)


if __name__ == "__main__":
    _serve()
