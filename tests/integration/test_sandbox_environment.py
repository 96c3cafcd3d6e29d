"""The sandbox as Harbor uses it: start/exec/upload/download/stop, bpy inside, the separate
verifier sandbox and a real Harbor trial through Trial's own API — all with
`sandbox.environment:ArkevoSandboxEnvironment` and real isolation (as root). `harbor run` on the
CLI with this environment is test_task_production.py's, on a real publication."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from harbor.models.task.config import NetworkMode, NetworkPolicy
from harbor.models.trial.config import AgentConfig, EnvironmentConfig, TaskConfig, TrialConfig
from harbor.trial.trial import Trial

from sandbox.environment import ArkevoSandboxEnvironment, SandboxUnavailable
from sandbox.isolation import landlock

from tests.adversarial.sandbox_helpers import (
    IMPORT_PATH,
    exec_log,
    make_env,
    requires_landlock,
    sandbox_kwargs,
    started,
    write_harbor_task,
)

pytestmark = [requires_landlock, pytest.mark.blender, pytest.mark.timeout(180)]

ROOT = Path(__file__).resolve().parents[2]

# Solver: writes the answer, plus files the verifier must never receive.
SOLVE_BPY = """\
set -euo pipefail
mkdir -p /workspace/outputs
python3 - <<'PY'
import bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.mesh.primitive_cube_add(size=2.0)
bpy.context.active_object.name = "Answer"
bpy.ops.wm.save_as_mainfile(filepath="/workspace/outputs/result.blend")
PY
echo "scratch notes" > /workspace/notes.txt
echo "temp" > /tmp/solver-tmp.txt
ls /private > /workspace/outputs/private-listing.txt 2>&1 || true
"""

# Verifier: grades the .blend in bpy and checks what it can and cannot see.
TEST_BPY = """\
mkdir -p /logs/verifier
python3 - <<'PY'
import json, os, subprocess, bpy
bpy.ops.wm.open_mainfile(filepath="/workspace/outputs/result.blend")
cube = bpy.data.objects.get("Answer")
seen = {
    "cube": cube is not None and len(cube.data.vertices) == 8,
    "tests_visible": os.path.exists("/tests/test.sh"),
    "solver_notes": os.path.exists("/workspace/notes.txt"),
    "solver_inputs": os.path.exists("/workspace/inputs"),
    "solver_tmp": os.path.exists("/tmp/solver-tmp.txt"),
    "solution": os.path.exists("/solution/solve.sh"),
    "private": open("/private/reference.txt").read().strip(),
    "solver_saw_private": "No such file" not in open("/workspace/outputs/private-listing.txt").read(),
    "links": subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout.count("\\n"),
}
json.dump(seen, open("/logs/verifier/report.json", "w"))  # bpy prints to stdout itself
PY
python3 - <<'PY'
import json
seen = json.load(open("/logs/verifier/report.json"))
ok = seen["cube"] and seen["tests_visible"] and seen["links"] == 1
print(1.0 if ok else 0.0, file=open("/logs/verifier/reward.txt", "w"))
PY
"""


@pytest.fixture(scope="module")
def base_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("sandbox-base")


async def test_start_exec_upload_download_stop_round_trip(tmp_path, base_dir):
    env = make_env(tmp_path, "roundtrip", base_dir=base_dir, files={"inputs/n.txt": "21\n"})
    source = tmp_path / "upload"
    (source / "nested").mkdir(parents=True)
    (source / "nested" / "data.txt").write_text("payload\n")
    (tmp_path / "single.txt").write_text("single\n")
    async with started(env):
        who = await env.exec("id -un; pwd; cat inputs/n.txt; echo $FOO", env={"FOO": "bar"})
        assert who.stdout.split() == [env._sandbox.slot.user, "/workspace", "21", "bar"]
        assert (await env.exec("exit 3")).return_code == 3
        await env.upload_dir(source, "/workspace/up")
        await env.upload_file(tmp_path / "single.txt", "/workspace/deep/er/single.txt")
        await env.upload_dir(source, "/tests")  # read-only root: copied by the worker
        check = await env.exec("cat /workspace/up/nested/data.txt /workspace/deep/er/single.txt "
                               "/tests/nested/data.txt && touch /tests/nope", cwd="/tmp")
        assert check.stdout.split() == ["payload", "single", "payload"]
        assert "Read-only file system" in check.stderr
        await env.exec("mkdir -p outputs && echo 42 > outputs/answer.txt")
        await env.download_dir("/workspace", tmp_path / "down")
        await env.download_file("/workspace/outputs/answer.txt", tmp_path / "answer.txt")
        assert await env.is_dir("/workspace/up") and await env.is_file("/workspace/outputs/answer.txt")
        with pytest.raises(RuntimeError, match="timed out"):
            await env.exec("sleep 30", timeout_sec=1)
    assert (tmp_path / "down" / "up" / "nested" / "data.txt").read_text() == "payload\n"
    assert (tmp_path / "down" / "inputs" / "n.txt").read_text() == "21\n"
    assert (tmp_path / "answer.txt").read_text() == "42\n"
    events = [r["event"] for r in exec_log(env)]
    assert events[0] == "start" and events[-1] == "stop" and events.count("exec") >= 5


async def test_bpy_runs_inside_and_saves_a_blend(tmp_path, base_dir):
    env = make_env(tmp_path, "bpy", base_dir=base_dir)
    async with started(env):
        assert env.python == f"{sys.prefix}/bin/python3"
        result = await env.exec(
            "mkdir -p /workspace/outputs && python3 -c \"import bpy; "
            "bpy.ops.wm.read_factory_settings(use_empty=True); bpy.ops.mesh.primitive_cube_add(); "
            "bpy.ops.wm.save_as_mainfile(filepath='/workspace/outputs/cube.blend'); "
            "print(bpy.app.version_string)\"")
        assert result.return_code == 0, result.stderr
        assert result.stdout.strip().splitlines()[-1].startswith("5.2")
        await env.download_file("/workspace/outputs/cube.blend", tmp_path / "cube.blend")
    header = (tmp_path / "cube.blend").read_bytes()[:7]
    assert header == b"BLENDER" or header[:4] == b"\x28\xb5\x2f\xfd"  # plain or zstd .blend


async def test_spawned_process_talks_over_pipes_and_dies_at_stop(tmp_path, base_dir):
    env = make_env(tmp_path, "spawn", base_dir=base_dir)
    async with started(env):
        echo = await env.spawn([env.python, "-u", "-c",
                                "import sys\nfor line in sys.stdin: print(line.strip().upper(), flush=True)"])
        echo.stdin.write(b"hello sandbox\n")
        await echo.stdin.drain()
        assert (await echo.stdout.readline()).strip() == b"HELLO SANDBOX"
        seen = await env.exec("ps -eo args= | grep -c '[u]pper()'")
        assert seen.stdout.strip() == "1"  # the spawned process shares the trial's pid namespace
    assert echo.returncode is not None


async def _run_trial(task_dir: Path, trials_dir: Path, base_dir: Path):
    config = TrialConfig(
        task=TaskConfig(path=task_dir), trials_dir=trials_dir, agent=AgentConfig(name="oracle"),
        environment=EnvironmentConfig(import_path=IMPORT_PATH, kwargs=sandbox_kwargs(base_dir)))
    trial = await Trial.create(config)
    result = await trial.run()
    return trial, result


async def test_harbor_trial_api_with_oracle_and_separate_verifier(tmp_path, base_dir):
    task = write_harbor_task(tmp_path / "bpy-task", solve=SOLVE_BPY, test=TEST_BPY, separate=True,
                             workspace={"inputs/spec.md": "make a cube named Answer\n"},
                             private={"reference.txt": "reference-only\n"})
    trial, result = await _run_trial(task, tmp_path / "trials", base_dir)
    assert result.exception_info is None, result.exception_info
    assert result.verifier_result.rewards == {"reward": 1.0}
    trial_dir = trial.paths.trial_dir
    seen = json.loads((trial_dir / "verifier" / "report.json").read_text())
    # the verifier's fresh sandbox got the delivered output, tests/ and private/, nothing else;
    # the solver never saw private/
    assert seen == {"cube": True, "tests_visible": True, "solver_notes": False,
                    "solver_inputs": False, "solver_tmp": False, "solution": False,
                    "private": "reference-only", "solver_saw_private": False, "links": 1}
    logs = {p.stem: [json.loads(x) for x in p.read_text().splitlines()]
            for p in (trial_dir / "sandbox").glob("*.jsonl")}
    roles = {name: records[0]["role"] for name, records in logs.items()}
    assert sorted(roles.values()) == ["solver", "verifier"]


async def test_harbor_trial_api_with_oracle_in_shared_mode(tmp_path, base_dir):
    task = write_harbor_task(
        tmp_path / "shared-task", workspace={"inputs/n.txt": "21\n"},
        solve="mkdir -p /workspace/outputs && echo $((2 * $(cat /workspace/inputs/n.txt))) "
              "> /workspace/outputs/answer.txt\n",
        test='[ "$(cat /workspace/outputs/answer.txt)" = 42 ] && echo 1 > /logs/verifier/reward.txt '
             '|| echo 0 > /logs/verifier/reward.txt\n')
    trial, result = await _run_trial(task, tmp_path / "trials", base_dir)
    assert result.exception_info is None, result.exception_info
    assert result.verifier_result.rewards == {"reward": 1.0}
    assert (trial.paths.agent_dir / "oracle.txt").exists()


async def test_missing_landlock_or_an_allowlist_is_a_clear_error(tmp_path, base_dir, monkeypatch):
    with pytest.raises(ValueError, match="allowlist.*not supported by the arkevo sandbox"):
        make_env(tmp_path, "allow", base_dir=base_dir, network_policy=NetworkPolicy(
            network_mode=NetworkMode.ALLOWLIST, allowed_hosts=["example.org"]))
    monkeypatch.setattr(landlock, "abi_version", lambda: 0)  # a kernel without Landlock
    with pytest.raises(SystemExit, match="no Landlock"):
        ArkevoSandboxEnvironment.preflight()
    env = make_env(tmp_path, "nolandlock", base_dir=base_dir)
    with pytest.raises(SandboxUnavailable, match="no Landlock"):
        await env.start(force_build=False)


async def test_a_bwrap_that_dies_before_its_launcher_is_started_again(tmp_path, base_dir, monkeypatch):
    """The rare "bwrap exited early" (no launcher status: the command never ran) costs nothing:
    the launch starts bwrap again. Here a wrapper in bwrap's place dies on its first start."""
    import shutil as real_shutil

    from sandbox.isolation import trial as trial_module

    real = real_shutil.which("bwrap")
    marker = tmp_path / "died-once"
    wrapper = tmp_path / "bwrap"
    wrapper.write_text(f"#!/bin/sh\nif [ ! -e {marker} ]; then : > {marker}; echo 'simulated early death' >&2; "
                       f"exit 1; fi\nexec {real} \"$@\"\n")
    wrapper.chmod(0o755)
    env = make_env(tmp_path, "relaunch", base_dir=base_dir, held_launches=False)  # every exec a bwrap
    async with started(env):
        monkeypatch.setattr(trial_module.shutil, "which",
                            lambda name: str(wrapper) if name == "bwrap" else real_shutil.which(name))
        result = await env.exec("echo ran once")
        early = list(env._sandbox.early_deaths)
    assert result.return_code == 0 and result.stdout.strip() == "ran once"
    assert len(early) == 1 and "bwrap exited early (status 1)" in early[0]
    assert "simulated early death" in result.stderr  # what bwrap said goes where its stderr went
    assert [r.get("bwrap_relaunched") for r in exec_log(env) if r["event"] == "stop"] == [1]
