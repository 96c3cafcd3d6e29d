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
import socket
import textwrap
from pathlib import Path

import pytest
from harbor.models.task.config import EnvironmentConfig, NetworkMode, NetworkPolicy
from harbor.models.trial.paths import TrialPaths

from sandbox.environment import ArkevoSandboxEnvironment
from sandbox.isolation import host

IMPORT_PATH = "sandbox.environment:ArkevoSandboxEnvironment"
TEST_USER_PREFIX = "arkevo-test-"

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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
