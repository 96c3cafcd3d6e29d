"""The sandbox's own record of a trial, written on the host where no sandboxed process can reach.

`<trial_dir>/sandbox/<session_id>.jsonl` gets one JSON line per event (start, exec, spawn,
transfer refusal, stop with the cgroup's peak memory and limit hits), and every exec's full
stderr goes to `<trial_dir>/sandbox/<session_id>/exec-NNNN.stderr`. A denied escape attempt is
therefore on record twice: the command's exit status and the error the kernel gave it.
"""

from __future__ import annotations

import json
import threading
import time
from datetime import datetime, UTC
from pathlib import Path

TAIL = 2000


class ExecLog:
    def __init__(self, folder: Path, session_id: str):
        self.folder = folder
        self.path = folder / f"{session_id}.jsonl"
        self.stderr_dir = folder / session_id
        self._lock = threading.Lock()
        self._seq = 0

    def next_seq(self) -> int:
        with self._lock:
            self._seq += 1
            return self._seq

    def event(self, kind: str, **fields) -> None:
        record = {"ts": datetime.now(UTC).isoformat(timespec="milliseconds"),
                  "event": kind, **fields}
        line = json.dumps(record, default=str, ensure_ascii=False) + "\n"
        with self._lock:
            self.folder.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(line)

    def exec_done(self, seq: int, *, command: str, cwd: str, user, started: float,
                  return_code: int | None, timed_out: bool, stdout: str, stderr: str,
                  truncated: bool, **extra) -> None:
        stderr_file = None
        if stderr:
            self.stderr_dir.mkdir(parents=True, exist_ok=True)
            stderr_file = self.stderr_dir / f"exec-{seq:04d}.stderr"
            stderr_file.write_text(stderr, encoding="utf-8")
        self.event("exec", seq=seq, command=command, cwd=cwd, user_requested=user,
                   return_code=return_code, timed_out=timed_out,
                   wall_sec=round(time.monotonic() - started, 3),
                   stdout_tail=stdout[-TAIL:], stderr_tail=stderr[-TAIL:],
                   stderr_file=str(stderr_file) if stderr_file else None,
                   output_truncated=truncated, **extra)
