"""Blender subprocesses for the verifier side: fresh processes per script, and a warm probe.

Blender runs out of process (a crash or leak never takes the caller down; each fresh run starts
from a clean Blender).  A non-zero exit raises ``BpyProcessError`` -- an infrastructure fault,
never a score.  ``WarmProbe`` keeps one bpy process with the probe library loaded and measures
many deliveries in it (see ``probe_server.py``); ``probe_fresh`` starts one process per probe.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

VERIFIERS = Path(__file__).resolve().parent
ROOT = VERIFIERS.parent
RULE_PROBE = VERIFIERS / "rule_probe.py"
PROBE_SERVER = VERIFIERS / "probe_server.py"
RENDER_EVIDENCE = VERIFIERS / "render_evidence.py"
APPLY_SCRIPT = ROOT / "activities" / "blender" / "apply_script.py"
BUILD_WORKSPACE = ROOT / "activities" / "blender" / "build_workspace.py"


class BpyProcessError(RuntimeError):
    """Blender exited non-zero, hung, or a warm process died: infrastructure, retry it."""


def bpy_python() -> str:
    """The interpreter that has ``bpy``: this one unless ARKEVO_BPY_PYTHON says otherwise."""
    return os.environ.get("ARKEVO_BPY_PYTHON", sys.executable)


def _clean_env() -> dict[str, str]:
    # model credentials never reach a Blender process
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("ARKEVO_SECRET", "OPENAI_", "ARKEVO_VL_API_KEY"))}


def run_script(script: Path, args: list[str | Path], *, timeout: float = 600,
               cwd: Path | None = None) -> subprocess.CompletedProcess:
    argv = [bpy_python(), str(script), *map(str, args)]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=cwd,
                              env=_clean_env())
    except subprocess.TimeoutExpired as exc:
        raise BpyProcessError(f"{script.name} still running after {timeout:.0f}s; killed") from exc
    if proc.returncode != 0:
        tail = (proc.stdout[-1500:] + "\n" + proc.stderr[-3000:]).strip()
        raise BpyProcessError(f"{script.name} exited with {proc.returncode}:\n{tail}")
    return proc


def apply_script(blend_in: Path, script: Path, blend_out: Path, timeout: float = 600) -> Path:
    run_script(APPLY_SCRIPT, ["--in", blend_in, "--script", script, "--out", blend_out], timeout=timeout)
    return blend_out


def build_workspace(reference: Path, start_mode: str, out_start: Path, out_reference: Path,
                    timeout: float = 600) -> Path:
    run_script(BUILD_WORKSPACE, ["--reference", reference, "--start-mode", start_mode,
                                 "--out-start", out_start, "--out-reference", out_reference],
               timeout=timeout, cwd=reference.parent)
    return out_start


def probe_fresh(blend: Path, task: Path, rubric: Path, out: Path, probes: Path | None = None,
                timeout: float = 600) -> dict:
    """One fresh bpy process for one probe (what a packaged task's test.sh does)."""
    args: list[str | Path] = ["--blend", blend, "--task", task, "--rubric", rubric, "--out", out]
    if probes is not None:
        args += ["--probes", probes]
    run_script(RULE_PROBE, args, timeout=timeout)
    return json.loads(Path(out).read_text(encoding="utf-8"))


def render_jobs(jobs: list[dict], timeout: float = 900) -> list[dict]:
    """Render evidence for ``jobs`` ([{blend, spec, out}]) in one bpy process; manifests back."""
    if not jobs:
        return []
    with tempfile.TemporaryDirectory(prefix="arkevo-render-") as tmp:
        jobs_file = Path(tmp) / "jobs.json"
        jobs_file.write_text(json.dumps(jobs), encoding="utf-8")
        run_script(RENDER_EVIDENCE, ["--jobs", jobs_file], timeout=timeout)
    return [json.loads((Path(j["out"]) / "manifest.json").read_text(encoding="utf-8")) for j in jobs]


class WarmProbe:
    """One warm bpy process running ``probe_server.py``; ``probe()`` is its unit of work.

    Use as a context manager.  Thread-safe (one job at a time).  If the process dies, the
    current call raises ``BpyProcessError`` and the next call starts a fresh process."""

    def __init__(self, timeout: float = 600, log: Path | None = None):
        self.timeout = timeout
        self.log = log
        self._proc: subprocess.Popen | None = None
        self._reader = None
        self._lock = threading.Lock()
        self.jobs = 0
        self.starts = 0

    def __enter__(self) -> "WarmProbe":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _start(self) -> None:
        read_fd, write_fd = os.pipe()
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL
        try:
            self._proc = subprocess.Popen(
                [bpy_python(), str(PROBE_SERVER), "--reply-fd", str(write_fd)],
                stdin=subprocess.PIPE, stdout=out, stderr=out, pass_fds=(write_fd,), env=_clean_env(),
                text=True,
            )
        finally:
            os.close(write_fd)
            if out is not subprocess.DEVNULL:
                out.close()
        self._reader = os.fdopen(read_fd, "r", encoding="utf-8")
        self.starts += 1
        ready = self._read_reply(120)
        if not ready.get("ready"):
            raise BpyProcessError(f"warm probe did not start: {ready}")

    def _read_reply(self, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self._kill()
                raise BpyProcessError(f"warm probe gave no answer within {timeout:.0f}s; killed")
            ready, _, _ = select.select([self._reader], [], [], min(left, 1.0))
            if ready:
                line = self._reader.readline()
                if not line:
                    code = self._proc.wait() if self._proc else None
                    self._proc = None
                    raise BpyProcessError(f"warm probe process exited ({code})")
                return json.loads(line)

    def probe(self, blend: Path, task: Path, rubric: Path, out: Path, probes: Path | None = None) -> dict:
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._start()
            job = {"blend": str(blend), "task": str(task), "rubric": str(rubric), "out": str(out),
                   "probes": str(probes) if probes else None}
            try:
                self._proc.stdin.write(json.dumps(job) + "\n")
                self._proc.stdin.flush()
            except BrokenPipeError as exc:
                self._proc = None
                raise BpyProcessError("warm probe process is gone") from exc
            answer = self._read_reply(self.timeout)
            self.jobs += 1
            if not answer.get("ok"):
                raise BpyProcessError(f"probe of {blend} failed in the warm process:\n{answer.get('error')}")
            return json.loads(Path(out).read_text(encoding="utf-8"))

    def _kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None

    def close(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            try:
                self._proc.stdin.write(json.dumps({"cmd": "quit"}) + "\n")
                self._proc.stdin.close()
                self._proc.wait(timeout=30)
            except (BrokenPipeError, subprocess.TimeoutExpired, OSError):
                self._kill()
        self._proc = None
        if self._reader is not None:
            self._reader.close()
            self._reader = None
