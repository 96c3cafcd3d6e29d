"""Where a trial runs. Both backends take the same Harbor task directory and a policy and
return the delivered .blend and the verifier's report; neither reads solver-reported numbers.

* `HarborSandboxBackend` (default): Harbor's own Trial API with the isolated sandbox
  environment (own UID, Landlock, loopback-only network, separate verifier sandbox) and the
  scripted MCP agent or the LLM agent.
* `LocalBackend`: plain Blender subprocesses, unisolated — for machines where the sandbox
  cannot run (no root, no Landlock). Selected with ARKEVO_TRIAL_BACKEND=local.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path

from temporalio import activity

from activities.blender.runner import BLENDER_SCRIPTS, HEARTBEAT_SECONDS, run_bpy
from activities.policies import Policy

DELIVERY = "outputs/result.blend"
SANDBOX_ENVIRONMENT = "sandbox.environment:ArkevoSandboxEnvironment"
# Harbor records an agent that ran out of time as this exception; the attempt is still graded.
AGENT_TIMEOUT = "AgentTimeoutError"


class TrialInfraError(Exception):
    """The trial could not be carried out (sandbox, Blender, verifier): retried, never a 0."""


@dataclass
class TrialRun:
    delivery: Path | None
    report: Path
    timed_out: bool = False


class TrialBackend(ABC):
    @abstractmethod
    async def run(self, task_dir: Path, policy: Policy, scripts: Path, work: Path) -> TrialRun:
        """Solve `task_dir` with `policy` (its script under `scripts`), verify, return files."""


class HarborSandboxBackend(TrialBackend):
    def __init__(self, environment_kwargs: dict | None = None,
                 agent_timeout_sec: float | None = None):
        self.environment_kwargs = environment_kwargs or {}
        self.agent_timeout_sec = agent_timeout_sec  # None: the task's [agent].timeout_sec

    async def run(self, task_dir: Path, policy: Policy, scripts: Path, work: Path) -> TrialRun:
        from harbor.models.trial.config import (AgentConfig, EnvironmentConfig, TaskConfig,
                                                TrialConfig)
        from harbor.trial.trial import Trial

        script = str(scripts / policy.script) if policy.script else None
        import_path, kwargs = policy.agent(script)
        config = TrialConfig(
            task=TaskConfig(path=task_dir),
            trials_dir=work / "trials",
            agent=AgentConfig(import_path=import_path, kwargs=kwargs,
                              override_timeout_sec=self.agent_timeout_sec),
            environment=EnvironmentConfig(import_path=SANDBOX_ENVIRONMENT,
                                          kwargs=self.environment_kwargs),
        )
        trial = await Trial.create(config)
        result = await _heartbeating(trial.run(), f"harbor trial {policy.name}")

        report = trial.paths.verifier_dir / "report.json"
        info = result.exception_info
        timed_out = info is not None and info.exception_type == AGENT_TIMEOUT
        if info is not None and not timed_out and not _null_reward(report):
            raise TrialInfraError(f"{info.exception_type}: {info.exception_message}")
        if not report.is_file():
            raise TrialInfraError(f"verifier wrote no report ({trial.paths.verifier_dir})")
        delivered = list(trial.paths.artifacts_dir.rglob("result.blend"))
        return TrialRun(delivered[0] if delivered else None, report, timed_out)


class LocalBackend(TrialBackend):
    """Unsandboxed: the solver script and the probe run as plain Blender subprocesses."""

    async def run(self, task_dir: Path, policy: Policy, scripts: Path, work: Path) -> TrialRun:
        workspace = work / "workspace"
        shutil.copytree(task_dir / "environment" / "workspace", workspace)
        delivery = workspace / DELIVERY
        delivery.parent.mkdir(parents=True, exist_ok=True)
        if policy.kind == "model":
            raise TrialInfraError("the local backend runs scripted policies only")
        if policy.script is None:
            shutil.copyfile(workspace / "inputs" / "start.blend", delivery)
        else:
            await run_bpy(BLENDER_SCRIPTS / "apply_script.py",
                          ["--in", "inputs/start.blend", "--out", DELIVERY,
                           "--script", str(scripts / policy.script)],
                          cwd=workspace, timeout=1800, log=work / "logs" / "solver.log")
        # The verifier gets its own copy: it never reads the solver's workspace.
        verifier = work / "verifier"
        shutil.copytree(task_dir / "tests", verifier / "tests")
        delivered = verifier / "delivery" / "result.blend"
        delivered.parent.mkdir(parents=True)
        if delivery.is_file():
            shutil.copyfile(delivery, delivered)
        report = verifier / "logs" / "report.json"
        report.parent.mkdir(parents=True)
        tests = verifier / "tests"
        await run_bpy(tests / "rule_probe.py",
                      ["--blend", str(delivered), "--task", str(tests / "task.json"),
                       "--rubric", str(tests / "rubric.json"), "--out", str(report)],
                      cwd=verifier, timeout=600, log=work / "logs" / "verifier.log")
        return TrialRun(delivered if delivered.is_file() else None, report)


def _null_reward(report: Path) -> bool:
    """The verifier graded but a weighted channel had no score: Harbor sees no reward file,
    yet this is a recorded null (with its reason), not an infrastructure failure."""
    return report.is_file() and json.loads(report.read_text())["reward"] is None


async def _heartbeating(coro, what: str):
    """Await `coro`, heartbeating so a dead worker's trial is retried elsewhere quickly."""
    task = asyncio.ensure_future(coro)
    while True:
        done, _ = await asyncio.wait({task}, timeout=HEARTBEAT_SECONDS)
        if done:
            return task.result()
        if activity.in_activity():
            activity.heartbeat(f"{what} running")


def backend_from_env() -> TrialBackend:
    kind = os.environ.get("ARKEVO_TRIAL_BACKEND", "sandbox")
    if kind == "local":
        return LocalBackend()
    if kind == "sandbox":
        return HarborSandboxBackend()
    raise ValueError(f"ARKEVO_TRIAL_BACKEND={kind!r}: expected 'sandbox' or 'local'")
