"""The author model's Blender: an isolated sandbox with the seed's materials and the built
scenes, and an MCP session on the reference scene.

    async with authoring_sandbox(seed_dir, start, reference, work=tmp, name="author-x-r1") as mcp:
        await mcp.call_tool("execute_blender_code", {"code": "print(bpy.data.objects.keys())"})

The sandbox is an `ArkevoSandboxEnvironment` (role solver: the slot user, Landlock, no
network). Its environment folder has no Dockerfile, so the whole folder is copied into the
workdir (sandbox/isolation/taskimage.py):

    /workspace/seed.json, /workspace/materials/...    the seed (never draft/)
    /workspace/inputs/start.blend                     the solver's starting scene
    /workspace/reference/reference.blend              open in the Blender host

Keys never go in: the loop runs in the worker and only MCP tool calls cross. A sandbox or
MCP session that cannot start raises (infrastructure, retried); the sandbox is always stopped.
"""

from __future__ import annotations

import logging
import re
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from harbor.models.task.config import EnvironmentConfig, NetworkMode, NetworkPolicy
from harbor.models.trial.paths import TrialPaths

from sandbox.environment import ArkevoSandboxEnvironment
from sandbox.mcp_session import BlenderMcpSession, McpSessionConfig

WORKDIR = "/workspace"
START_BLEND = "inputs/start.blend"
REFERENCE_BLEND = "reference/reference.blend"
logger = logging.getLogger(__name__)


def _environment_dir(env_dir: Path, seed_dir: Path, start_blend: Path, reference_blend: Path) -> Path:
    env_dir.mkdir(parents=True)
    shutil.copy2(seed_dir / "seed.json", env_dir / "seed.json")
    if (seed_dir / "materials").is_dir():
        shutil.copytree(seed_dir / "materials", env_dir / "materials", symlinks=True)
    for source, rel in ((start_blend, START_BLEND), (reference_blend, REFERENCE_BLEND)):
        (env_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, env_dir / rel)
    return env_dir


@asynccontextmanager
async def authoring_sandbox(seed_dir: Path, start_blend: Path, reference_blend: Path, *,
                            work: Path, name: str,
                            sandbox_kwargs: dict | None = None) -> AsyncIterator[BlenderMcpSession]:
    """Start the sandbox and the MCP session on the reference scene; `work` (a temp folder)
    holds the environment folder and the trial paths (sandbox and MCP logs)."""
    work = Path(work)
    env_dir = _environment_dir(work / "environment", Path(seed_dir), start_blend, reference_blend)
    paths = TrialPaths(work / "trial")
    paths.mkdir()
    session_id = re.sub(r"[^A-Za-z0-9_.-]", "-", name)[:100]
    environment = ArkevoSandboxEnvironment(
        environment_dir=env_dir, environment_name="authoring", session_id=session_id,
        trial_paths=paths, task_env_config=EnvironmentConfig(workdir=WORKDIR, network_mode="no-network"),
        logger=logger, network_policy=NetworkPolicy(network_mode=NetworkMode.NO_NETWORK),
        **{**(sandbox_kwargs or {}), "role": "solver"})
    await environment.start(force_build=False)
    try:
        config = McpSessionConfig(workdir=WORKDIR, blend=REFERENCE_BLEND)
        async with BlenderMcpSession(environment, config, log_dir=work / "mcp") as session:
            yield session
    finally:
        await environment.stop(delete=True)
