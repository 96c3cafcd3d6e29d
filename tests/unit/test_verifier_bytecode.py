"""The verifier's own modules compiled on the worker (verifiers/verifier_bytecode.py): a
checked-hash .pyc beside each named module, none for a task's own probes, the bytecode used by a
Python that may not write any, and a source that changed after it was compiled run from its
source, never from the stale bytecode."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

from activities.harbor_task import VERIFIER_MODULES
from verifiers import verifier_bytecode
from verifiers.verifier_bytecode import add_bytecode


def _python(tests: Path, code: str) -> subprocess.CompletedProcess:
    """A fresh interpreter importing from ``tests`` as a sandboxed verifier does (it may not
    write bytecode), with ``-v`` so that each import says where its code came from."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-v", "-c", f"import sys; sys.path.insert(0, {str(tests)!r}); {code}"],
                          capture_output=True, text=True, env=env, timeout=60, check=True)


def test_the_named_modules_get_checked_bytecode_the_task_probes_none(tmp_path):
    tests = tmp_path / "tests"
    (tests / "verifiers").mkdir(parents=True)
    (tests / "probe_core.py").write_text("ANSWER = 41\n")
    (tests / "verifiers" / "scoring.py").write_text("WEIGHT = 2\n")
    (tests / "task_probes.py").write_text("AUTHOR = True\n")
    written = add_bytecode(tests, ["probe_core.py", "verifiers/scoring.py", "not_there.py"])
    assert written == [Path(importlib.util.cache_from_source(str(tests / "probe_core.py"))),
                       Path(importlib.util.cache_from_source(str(tests / "verifiers" / "scoring.py")))]
    assert not Path(importlib.util.cache_from_source(str(tests / "task_probes.py"))).exists()
    flags = int.from_bytes(written[0].read_bytes()[4:8], "little")
    assert flags == 0b11  # PEP 552: hash-based, checked against the source at every import
    assert "task_probes.py" not in VERIFIER_MODULES and "probe_core.py" in VERIFIER_MODULES

    used = _python(tests, "import probe_core; print(probe_core.ANSWER)")
    assert used.stdout.strip() == "41"
    assert f"matches {tests / 'probe_core.py'}" in used.stderr  # loaded from the .pyc

    (tests / "probe_core.py").write_text("ANSWER = 42\n")  # changed after it was compiled
    fresh = _python(tests, "import probe_core; print(probe_core.ANSWER)")
    assert fresh.stdout.strip() == "42"  # the source runs, not the stale bytecode
    assert f"matches {tests / 'probe_core.py'}" not in fresh.stderr


def test_a_source_is_compiled_once_per_worker_and_a_switch_turns_it_off(tmp_path, monkeypatch):
    compiled: list[str] = []
    real = verifier_bytecode.py_compile.compile
    monkeypatch.setattr(verifier_bytecode.py_compile, "compile", lambda *a, **kw: compiled.append(a[0]) or real(*a, **kw))
    for n in range(2):
        tests = tmp_path / f"trial{n}" / "tests"
        tests.mkdir(parents=True)
        (tests / "probe_core.py").write_text("UNIQUE_TO_THIS_TEST = 7\n")
        assert len(add_bytecode(tests, ["probe_core.py"])) == 1
    assert len(compiled) == 1  # the second trial's copy of the same source: from memory
    monkeypatch.setenv("ARKEVO_VERIFIER_BYTECODE", "0")
    off = tmp_path / "off" / "tests"
    off.mkdir(parents=True)
    (off / "probe_core.py").write_text("UNIQUE_TO_THIS_TEST = 7\n")
    assert add_bytecode(off, ["probe_core.py"]) == [] and not (off / "__pycache__").exists()
