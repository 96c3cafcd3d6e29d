"""The verifier's own modules compiled on the worker, for the sandbox that imports them.

A verifier sandbox's ``/tests`` is read-only and new for every trial, so each probe process
compiled the probe library (~12,000 lines: ~0.13 CPU-s) before it measured anything -- a third
of a forked rule probe's CPU.  ``write_harbor_task`` now puts a *checked-hash* ``.pyc`` (PEP 552)
beside each of the project's own verifier modules in a trial's ``tests/``: Python in the sandbox
hashes the source it is given and uses the bytecode only when the hash matches, so a source that
differs from what was compiled is compiled there as before, never run from stale bytecode.

Only the project's files are compiled here, chosen by name (the probe library, the evidence
renderer and the packaged grading's modules); a task's own ``task_probes.py`` is author code and is parsed only in
the sandbox.  The compiled bytes are kept per worker process by the source's sha256 (a trial's
``tests/`` is a fresh copy of the same few files).  ``ARKEVO_VERIFIER_BYTECODE=0`` leaves them out
(the A/B in docs/performance.md).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import py_compile
import threading
from collections.abc import Iterable
from pathlib import Path

_COMPILED: dict[str, bytes] = {}  # sha256 of a source -> its checked-hash .pyc
_LOCK = threading.Lock()


def enabled() -> bool:
    return os.environ.get("ARKEVO_VERIFIER_BYTECODE", "1") != "0"


def add_bytecode(tests: Path, names: Iterable[str]) -> list[Path]:
    """A checked-hash ``.pyc`` in ``__pycache__`` beside each of ``names`` (paths relative to
    ``tests``; those not there are skipped); the files written."""
    if not enabled():
        return []
    written = []
    for name in names:
        source = tests / name
        if not source.is_file():
            continue
        target = Path(importlib.util.cache_from_source(str(source)))
        key = hashlib.sha256(source.read_bytes()).hexdigest()
        with _LOCK:
            known = _COMPILED.get(key)
        if known is None:  # compiled where it goes, then kept for the next trial's copy
            py_compile.compile(str(source), cfile=str(target), dfile=f"/tests/{name}", doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
            with _LOCK:
                _COMPILED[key] = target.read_bytes()
        else:
            target.parent.mkdir(exist_ok=True)
            target.write_bytes(known)
        written.append(target)
    return written
