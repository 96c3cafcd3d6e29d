"""The authoring CLIs run outside code too: `calibrate()` and the `Scorer` run a seed's build
script, its solution, calibration samples and task probes, and the deliveries they make, in the
trial sandbox (`verifiers/bpy_procs.py`).

A copied seed whose build script, one calibration defect and `task_probes.py` (in the warm
probe) each try every door finds all of them closed; scripts that raise are the author's
mistake, named file by file; a host that cannot run the sandbox is told the switch and nothing
falls back silently; `--no-sandbox` and `ARKEVO_TRIAL_BACKEND=local` still run, unisolated.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest

from sandbox.isolation.settings import SandboxSettings
from sandbox.script_run import SandboxUnavailable
from tests.adversarial.sandbox_helpers import (assert_doors_closed, door_probe, free_port, read_scenes,
                                               requires_landlock, sandbox_kwargs)
from verifiers import calibration, score_delivery
from blender.runner import ScriptFailed
from verifiers.bpy_procs import MUTATIONS
from verifiers.profiles import get_profile
from verifiers.version import PROBE_FILES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(180)]

SECRET_KEY = "sk-fake-arkevo-calibration-0123456789"
# The exception task_probes.py raises to report what it found (its only way out).
FINDINGS = "RuntimeError: FINDINGS "


@pytest.fixture(scope="module")
def settings(tmp_path_factory) -> SandboxSettings:
    return SandboxSettings(**sandbox_kwargs(tmp_path_factory.mktemp("calibration-sandbox")))


def bare_seed(seed_copy) -> Path:
    """table-model with no calibration scripts of its own: each test adds what it needs."""
    seed = seed_copy("table-model")
    for script in (seed / "draft" / "calibration").rglob("*.py"):
        script.unlink()
    return seed


@requires_landlock
def test_probing_seed_scripts_find_every_door_closed(tmp_path, seed_copy, settings, project_root,
                                                     monkeypatch):
    monkeypatch.setenv("ARKEVO_SECRET_TEST", SECRET_KEY)
    nonce = uuid.uuid4().hex[:8]
    seed = bare_seed(seed_copy)
    other_seed = project_root / "seeds" / "robot-carry"
    port = free_port()
    server = socket.create_server(("127.0.0.1", port))
    accepted: list = []
    threading.Thread(target=lambda: accepted.append(server.accept()), daemon=True).start()
    config = {
        "ports": [port, 7233],
        "outside": ["1.1.1.1"],
        "read": [str(other_seed / "draft" / "solution" / "solve.py"),
                 str(other_seed / "draft" / "rubric.json"),
                 str(seed / "draft" / "rubric.json"),  # its own seed's private files too
                 str(project_root / "README.md"), "/root/.bashrc", "/etc/shadow",
                 f"/proc/{os.getpid()}/environ"],
        "list": ["/", "/root", "/work", str(project_root), str(project_root / "seeds"),
                 str(tmp_path), "/workspace", "/workspace/seed", "/tests"],
        "write": [f"/etc/arkevo-probe-{nonce}", f"/root/arkevo-probe-{nonce}",
                  f"{project_root}/arkevo-probe-{nonce}", f"{seed}/arkevo-probe-{nonce}",
                  f"{sys.prefix}/arkevo-probe-{nonce}", f"/tmp/arkevo-probe-{nonce}"],
        "worker_pid": os.getpid(),
    }
    (seed / "materials" / "build_reference.py").write_text(door_probe(config))
    (seed / "draft" / "calibration" / "defects" / "doors.py").write_text(door_probe(config))
    (seed / "draft" / "task_probes.py").write_text(door_probe(
        config, report="raise RuntimeError('FINDINGS ' + json.dumps(found))\n"))
    out = tmp_path / "out"
    try:
        with pytest.raises(ScriptFailed) as failure:  # task_probes.py reports by raising
            calibration.calibrate(seed / "draft", out, profiles=[get_profile("rule-only")], judge=None,
                                  cache=None, sandbox=settings)
    finally:
        server.close()

    [(file, exception)] = failure.value.problems
    assert file == seed / "draft" / "task_probes.py" and exception.startswith(FINDINGS)
    work = out / "work"
    blends = {"build": work / "workspace" / "private" / "reference.blend",
              "defect": work / "deliveries" / "defect-doors.blend"}
    scenes = read_scenes(*blends.values())
    found = {label: json.loads(scenes[str(blend)]["findings"]) for label, blend in blends.items()}
    found["task_probes"] = json.loads(exception[len(FINDINGS):])
    for label, seen in found.items():
        try:
            assert_doors_closed(seen, config, accepted, SECRET_KEY)
        except AssertionError as exc:
            raise AssertionError(f"{label}: {exc}") from exc
    # only the job's own files went in: the seed without draft/ and family/ (the draft's
    # templates), the script and its .blend, the probe code with the task files and one delivery
    assert found["build"]["listing"]["/workspace/seed"] == ["materials", "seed.json"]
    assert found["defect"]["listing"]["/workspace"] == ["doors.py", "inputs"]
    tests = found["task_probes"]["listing"]["/tests"]
    task_dir = next(name for name in tests if name.startswith("task-"))
    assert set(tests) <= {*PROBE_FILES, MUTATIONS, "probe_server.py", "delivery", task_dir}, tests


@requires_landlock
def test_scripts_that_raise_are_the_authors_mistake_named_file_by_file(tmp_path, seed_copy, settings,
                                                                       capsys):
    seed = bare_seed(seed_copy)
    calibration_dir = seed / "draft" / "calibration"
    (calibration_dir / "defects" / "legless.py").write_text("def legs():\n    return 4 / 0\n\nlegs()\n")
    (calibration_dir / "variants" / "typo.py").write_text("bpyy.ops.mesh.primitive_cube_add()\n")
    code = calibration.main(["--task-dir", str(seed / "draft"), "--out", str(tmp_path / "out"),
                             "--profile", "rule-only", "--judge", "none", "--cache", str(tmp_path / "cache")],
                            sandbox=settings)
    printed = capsys.readouterr().out
    assert code == 1
    lines = [" ".join(line.split()) for line in printed.splitlines() if line.startswith("error")]
    assert sorted(lines) == [
        f"error {calibration_dir / 'defects' / 'legless.py'}: ZeroDivisionError: division by zero",
        f"error {calibration_dir / 'variants' / 'typo.py'}: NameError: name 'bpyy' is not defined. "
        "Did you mean: 'bpy'?"], printed


@requires_landlock
def test_a_host_that_cannot_run_the_sandbox_is_told_the_switch(tmp_path, project_root, settings, capsys):
    broken = settings.model_copy(update={"python_prefix": tmp_path / "no-venv"})
    draft = project_root / "seeds" / "table-model" / "draft"
    with pytest.raises(SandboxUnavailable, match=r"no bin/ folder.*ARKEVO_TRIAL_BACKEND=local"):
        calibration.calibrate(draft, tmp_path / "cal", profiles=[get_profile("rule-only")], judge=None,
                              sandbox=broken)
    code = score_delivery.main(["--blend", str(tmp_path / "result.blend"), "--task-dir", str(draft),
                                "--profile", "rule-only", "--judge", "none", "--no-evidence",
                                "--out", str(tmp_path / "scored")], sandbox=broken)
    printed = " ".join(capsys.readouterr().out.split())
    assert code == 1 and "the sandbox could not start" in printed and "--no-sandbox" in printed, printed
    assert not (tmp_path / "scored" / "score.json").exists()  # nothing ran unisolated instead


@pytest.mark.parametrize("how", ["--no-sandbox", "ARKEVO_TRIAL_BACKEND=local"])
def test_no_sandbox_and_the_local_backend_run_unisolated(tmp_path, seed_copy, how):
    """Needs no Landlock: the opt-out for hosts without the sandbox. Task probes that write a
    host file prove where the probe ran (in the sandbox that file does not exist)."""
    seed = seed_copy("table-model")
    marker = tmp_path / "ran-unisolated"
    (seed / "draft" / "task_probes.py").write_text(f"import os\nopen({str(marker)!r}, 'w').write(str(os.getuid()))\n")
    argv = [sys.executable, "-m", "verifiers.score_delivery", "--blend", str(tmp_path / "result.blend"),
            "--task-dir", str(seed / "draft"), "--profile", "rule-only", "--judge", "none",
            "--no-evidence", "--out", str(tmp_path / "scored")]
    env = {**os.environ, "ARKEVO_TRIAL_BACKEND": "sandbox"}
    if how == "--no-sandbox":
        argv.append(how)
    else:
        env["ARKEVO_TRIAL_BACKEND"] = "local"
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert marker.read_text() == str(os.getuid())
    record = json.loads((tmp_path / "scored" / "score.json").read_text())
    assert record["total"] == 0.0 and re.search(r"not found: .*result\.blend", record["criteria"][0]["detail"])
