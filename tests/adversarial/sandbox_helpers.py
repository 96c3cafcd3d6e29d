"""Shared helpers for the sandbox tests (adversarial and integration).

Tests run real sandboxes as root: real slot users, bwrap, Landlock, cgroups and namespaces.
They use their own slot users (`arkevo-test-N`) and a temporary base folder, so they never
take a slot from a worker running on the same machine. They skip only where the kernel lacks
Landlock.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from harbor.models.task.config import EnvironmentConfig, NetworkMode, NetworkPolicy
from harbor.models.trial.paths import TrialPaths

from sandbox.environment import ArkevoSandboxEnvironment
from sandbox.isolation import host
from workers.stack import free_port  # noqa: F401 - the adversarial tests' import

IMPORT_PATH = "sandbox.environment:ArkevoSandboxEnvironment"
# The tests' own slot users. A background lane of `make test` (tests/background/runs.py) gets
# users of its own: two pytest processes sharing slot users would take the same slot from two
# slot pools, and each one's clean-up kills every process of the slot's user.
TEST_USER_PREFIX = os.environ.get("ARKEVO_TEST_SLOT_PREFIX", "arkevo-test-")

requires_landlock = pytest.mark.skipif(
    host.landlock_problem() is not None,
    reason=f"kernel lacks Landlock: {host.landlock_problem()}")


def sandbox_kwargs(base_dir: Path, **overrides) -> dict:
    return {"base_dir": base_dir, "user_prefix": TEST_USER_PREFIX, "slots": 4,
            "slot_wait_sec": 60, **overrides}


def write_env_dir(root: Path, files: dict[str, str] | None = None) -> Path:
    """A task `environment/` whose Dockerfile copies workspace/ to /workspace."""
    env_dir = root / "environment"
    (env_dir / "workspace").mkdir(parents=True, exist_ok=True)
    for rel, text in (files or {}).items():
        path = env_dir / "workspace" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (env_dir / "Dockerfile").write_text(
        "FROM python:3.13-slim\nRUN pip install bpy\nCOPY workspace /workspace\nWORKDIR /workspace\n")
    return env_dir


def make_env(tmp_path: Path, name: str, *, base_dir: Path, files: dict[str, str] | None = None,
             session_id: str | None = None, network_policy: NetworkPolicy | None = None,
             **kwargs) -> ArkevoSandboxEnvironment:
    root = tmp_path / name
    env_dir = write_env_dir(root, files)
    paths = TrialPaths(root / "trial")
    paths.mkdir()
    return ArkevoSandboxEnvironment(
        environment_dir=env_dir, environment_name=name,
        session_id=session_id or f"{name}__test__env", trial_paths=paths,
        task_env_config=EnvironmentConfig(workdir="/workspace", network_mode="no-network"),
        logger=logging.getLogger(f"sandbox-test.{name}"),
        network_policy=network_policy or NetworkPolicy(network_mode=NetworkMode.NO_NETWORK),
        **sandbox_kwargs(base_dir, **kwargs))


@contextlib.asynccontextmanager
async def started(env: ArkevoSandboxEnvironment):
    await env.start(force_build=False)
    try:
        yield env
    finally:
        await env.stop(delete=True)


def exec_log(env: ArkevoSandboxEnvironment) -> list[dict]:
    """The host-side JSON lines the environment wrote for this session."""
    path = env.trial_paths.trial_dir / "sandbox" / f"{env.session_id}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def slot_user_pids(uid: int) -> list[int]:
    """Host pids still running as a slot user (zombies excluded)."""
    from sandbox.isolation.slots import user_pids
    return user_pids(uid)


def write_harbor_task(root: Path, *, solve: str, test: str, separate: bool = False,
                      workspace: dict[str, str] | None = None,
                      private: dict[str, str] | None = None) -> Path:
    """A minimal Harbor task dir: task.toml, instruction.md, environment/, solution/, tests/
    (and private/, which only a separate verifier sandbox receives)."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in (private or {}).items():
        (root / "private" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "private" / rel).write_text(text)
    write_env_dir(root, workspace)
    (root / "instruction.md").write_text("Write the answer into /workspace/outputs/.\n")
    verifier = 'environment_mode = "separate"\n' if separate else ""
    (root / "task.toml").write_text(textwrap.dedent("""\
        schema_version = "1.4"
        artifacts = ["/workspace/outputs"]

        [verifier]
        timeout_sec = 120.0
        {verifier}
        [agent]
        timeout_sec = 120.0

        [environment]
        workdir = "/workspace"
        network_mode = "no-network"
        """).format(verifier=verifier))
    for folder, name, body in (("solution", "solve.sh", solve), ("tests", "test.sh", test)):
        path = root / folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!/bin/bash\n" + textwrap.dedent(body))
        path.chmod(0o755)
    return root


def read_reward(trial_dir: Path) -> float | None:
    verifier = trial_dir / "verifier"
    if (verifier / "reward.txt").exists():
        return float((verifier / "reward.txt").read_text())
    if (verifier / "reward.json").exists():
        return json.loads((verifier / "reward.json").read_text())["reward"]
    return None


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


# A bpy script that tries every door CONFIG names (a build script, a calibration sample, task
# probes): connections, reads, listings, writes, signals, processes, environment. What it found
# is in `found`; `report` says how it gets out (default: into the scene, for read_scenes).
DOOR_PROBE = r"""
import json, os, socket
import bpy

CONFIG = json.loads(%r)
found = {"uid": os.getuid(), "connect": {}, "outside": {}, "read": {}, "listing": {},
         "write": {}, "signal": {}}

def outcome(fn):
    try:
        return fn()
    except OSError as exc:
        return type(exc).__name__

for port in CONFIG["ports"]:
    found["connect"][str(port)] = outcome(
        lambda: socket.create_connection(("127.0.0.1", port), 2).close() or "connected")
for address in CONFIG["outside"]:
    found["outside"][address] = outcome(
        lambda: socket.create_connection((address, 80), 2).close() or "connected")
found["interfaces"] = [name for _, name in socket.if_nameindex()]
found["ipv4_routes"] = open("/proc/net/route").read().splitlines()[1:]
found["ipv6_route_devices"] = sorted({line.split()[-1] for line in open("/proc/net/ipv6_route")})
for path in CONFIG["read"]:
    found["read"][path] = outcome(lambda: open(path, "rb").close() or "read")
for path in CONFIG["list"]:
    found["listing"][path] = outcome(lambda: sorted(os.listdir(path)))
for path in CONFIG["write"]:
    found["write"][path] = outcome(lambda: open(path, "w").write("pwned") and "written")
found["signal"]["worker"] = outcome(lambda: os.kill(CONFIG["worker_pid"], 0) or "delivered")
found["processes"] = {pid: outcome(lambda: open(f"/proc/{pid}/cmdline").read().replace("\0", " "))
                      for pid in os.listdir("/proc") if pid.isdigit()}
found["env"] = dict(os.environ)
"""
INTO_SCENE = 'bpy.context.scene["arkevo_findings"] = json.dumps(found)\n'


def door_probe(config: dict, report: str = INTO_SCENE) -> str:
    return DOOR_PROBE % json.dumps(config) + report


# Reads scenes back in a fresh bpy process: {file: {object: [type, location, dimensions]}}.
LIST_SCENES = r"""
import json, sys, bpy
out = {}
for path in sys.argv[1:]:
    bpy.ops.wm.open_mainfile(filepath=path, load_ui=False, use_scripts=False)
    scene = bpy.context.scene
    out[path] = {"objects": {o.name: [o.type, [round(v, 4) for v in o.location],
                                      [round(v, 4) for v in o.dimensions]]
                             for o in bpy.data.objects},
                 "findings": scene.get("arkevo_findings")}
print("SCENES " + json.dumps(out))
"""


def read_scenes(*blends: Path) -> dict[str, dict]:
    proc = subprocess.run([sys.executable, "-c", LIST_SCENES, *map(str, blends)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    line = next(x for x in proc.stdout.splitlines() if x.startswith("SCENES "))
    return json.loads(line[len("SCENES "):])


def assert_doors_closed(found: dict, config: dict, accepted: list, secret: str) -> None:
    """What a door probe found: every door closed. config["ports"] start with a live listener
    (which must have accepted nothing); config["write"] ends with the sandbox's own /tmp."""
    assert found["uid"] != 0
    # network: no loopback service of the host (a live listener, Temporal's 7233/8233),
    # nothing outside, only `lo`, no route
    assert set(found["connect"].values()) == {"ConnectionRefusedError"}, found["connect"]
    assert accepted == []
    assert set(found["outside"].values()) <= {"OSError", "TimeoutError"}, found["outside"]
    assert found["interfaces"] == ["lo"]
    assert found["ipv4_routes"] == [] and found["ipv6_route_devices"] in ([], ["lo"])
    # files: other seeds, its own draft/, the project tree, the store, /root, the worker
    assert all(r in ("FileNotFoundError", "PermissionError") for r in found["read"].values()), found["read"]
    runtime = {Path(p) for p in (sys.prefix, sys.base_prefix)}  # bound read-only, as for trials
    for path, listing in found["listing"].items():
        if isinstance(listing, str):
            assert listing in ("FileNotFoundError", "PermissionError"), (path, listing)
            continue
        below = {(Path(path) / name) for name in listing}
        assert all(any(r == b or r.is_relative_to(b) for r in runtime) or str(b).startswith(
            ("/usr", "/etc", "/bin", "/sbin", "/lib", "/proc", "/dev", "/tmp", "/home",
             "/workspace", "/logs", "/tests", "/solution", "/opt"))
                   for b in below), (path, listing)
    # writes: nowhere on the host; the sandbox's /tmp is its own
    *host_targets, own_tmp = config["write"]
    for target in host_targets:
        assert found["write"][target] in ("PermissionError", "OSError", "FileNotFoundError"), target
        assert not Path(target).exists()
    assert found["write"][own_tmp] == "written" and not Path(own_tmp).exists()
    # processes: the worker is out of reach and out of sight; no secret in the environment
    assert found["signal"]["worker"] == "ProcessLookupError"
    assert str(os.getpid()) not in found["processes"] and len(found["processes"]) < 10
    assert not any("pytest" in cmd for cmd in found["processes"].values())
    assert secret not in json.dumps(found["env"]) and found["env"]["HOME"].startswith("/home/")
