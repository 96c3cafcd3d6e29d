"""Where a trial runs. Both backends take the same Harbor task directory and a policy and
return the delivered .blend and the verifier's report; neither reads solver-reported numbers.

* `HarborSandboxBackend` (default): Harbor's own Trial API with the isolated sandbox
  environment (own UID, Landlock, loopback-only network, separate verifier sandbox) and the
  agent the policy names (the scripted MCP agent, the LLM agent, or any Harbor agent a solver
  configuration names).
* `LocalBackend`: plain Blender subprocesses, unisolated — for machines where the sandbox
  cannot run (no root, no Landlock). Selected with ARKEVO_TRIAL_BACKEND=local.

Who a failure belongs to is decided here (docs/failures.md): a solver failure comes back on the
run (`TrialRun.failure`, graded), an author's broken script raises the non-retryable
`author_script_failed`, anything else raises `TrialInfraError` (retried).

What an attempt spent comes back as `TrialRun.cost` (docs/campaigns.md): from Harbor's trial
result and the sandbox's own cgroup record (`trial_cost`); the local backend knows wall time
only. The Harbor trial directory (`TrialRun.trial_dir`) is what a campaign keeps as evidence.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from temporalio import activity
from temporalio.exceptions import ApplicationError

from blender import runner
from blender.runner import BLENDER_SCRIPTS, BlenderProcessError, ScriptFailed
from sandbox.mcp_session import McpSessionConfig
from sandbox.prestart import PrestartedHosts, offering
from sandbox.script_run import LOCAL
from contracts.errors import author_script_failed
from activities.policies import Policy
from contracts.payloads.trials import MeasuredCost, TrialFailure

DELIVERY = "outputs/result.blend"
SANDBOX_ENVIRONMENT = "sandbox.environment:ArkevoSandboxEnvironment"
MCP_AGENTS = "sandbox.agents."  # the agents that drive Blender through BlenderMcpSession
# Harbor records an agent that ran out of time as this exception; the attempt is still graded.
AGENT_TIMEOUT = "AgentTimeoutError"
# What the scripted agent raises when the draft's own script failed (sandbox/agents/scripted.py).
SCRIPT_FAILED = "ScriptFailed"


class TrialInfraError(Exception):
    """The trial could not be carried out (sandbox, Blender, verifier): retried, never a 0."""


@dataclass
class TrialRun:
    delivery: Path | None
    report: Path
    timed_out: bool = False
    failure: TrialFailure | None = None  # a solver failure; infra and author failures raise
    cost: MeasuredCost | None = None  # what the attempt spent (docs/campaigns.md)
    trial_dir: Path | None = None  # Harbor's trial directory (evidence); None: not a Harbor trial


# Called with the folder of the collected delivery between the solve and the verifier, which
# reads task_dir/tests only then (TrialActivities drops a render the worker has cached already).
BeforeVerifier = Callable[[Path], Awaitable[None]]


class TrialBackend(ABC):
    @abstractmethod
    async def run(self, task_dir: Path, policy: Policy, scripts: Path, work: Path,
                  before_verifier: BeforeVerifier | None = None, prestart_next: bool = False) -> TrialRun:
        """Solve `task_dir` with `policy` (its script under `scripts`), verify, return files.
        `prestart_next`: another trial of this task follows on this worker's slot (a backend
        with pre-started sandboxes starts its sandbox as this one's solve ends)."""


class HarborSandboxBackend(TrialBackend):
    def __init__(self, environment_kwargs: dict | None = None,
                 agent_timeout_sec: float | None = None, agent_kwargs: dict | None = None,
                 prestart: int | PrestartedHosts = 0):
        self.environment_kwargs = environment_kwargs or {}
        self.agent_timeout_sec = agent_timeout_sec  # None: the task's [agent].timeout_sec
        self.agent_kwargs = agent_kwargs or {}  # added to every agent's options, e.g. {"mcp": {...}}
        # Solver sandboxes with a never-used Blender host and MCP server, started while the
        # previous trial of the same task finishes (sandbox/prestart.py); an int: at most that
        # many at a time (0: none).
        self.prestart: PrestartedHosts | None = None
        if isinstance(prestart, PrestartedHosts):
            self.prestart = prestart
        elif prestart > 0:
            self.prestart = PrestartedHosts(McpSessionConfig(**self.agent_kwargs.get("mcp", {})),
                                            capacity=prestart)

    async def run(self, task_dir: Path, policy: Policy, scripts: Path, work: Path,
                  before_verifier: BeforeVerifier | None = None, prestart_next: bool = False) -> TrialRun:
        from harbor.models.trial.config import (AgentConfig, EnvironmentConfig, TaskConfig,
                                                TrialConfig)
        from harbor.trial.hooks import TrialEvent
        from harbor.trial.trial import Trial

        script = str(scripts / policy.script) if policy.script else None
        agent = policy.agent_config(script, self.agent_kwargs)
        if self.agent_timeout_sec is not None:  # the worker's override beats the config's
            agent["override_timeout_sec"] = self.agent_timeout_sec
        config = TrialConfig(
            task=TaskConfig(path=task_dir),
            trials_dir=work / "trials",
            agent=AgentConfig(**agent),
            environment=EnvironmentConfig(import_path=SANDBOX_ENVIRONMENT,
                                          kwargs=self.environment_kwargs),
        )
        try:
            trial = await Trial.create(config)
        except Exception as exc:  # the environment or the agent could not even be set up
            raise TrialInfraError(f"{type(exc).__name__}: {exc}") from exc
        artifacts = trial.paths.artifacts_dir

        async def verifying(_event) -> None:
            # The solve is over: the next trial's sandbox may start now, beside the verifier.
            getattr(trial.agent_environment, "prestart_next", lambda: None)()
            if before_verifier is not None:
                await before_verifier(artifacts)

        trial.add_hook(TrialEvent.VERIFICATION_START, verifying)
        # Only the MCP agents adopt a pre-started host; any other agent would leave it idle.
        pool = self.prestart if agent["import_path"].startswith(MCP_AGENTS) else None
        with offering(pool, refill=prestart_next):
            result = await _heartbeating(trial.run(), f"harbor trial {policy.name}")

        report = trial.paths.verifier_dir / "report.json"
        info = result.exception_info
        agent_failure = ((result.agent_result and result.agent_result.metadata) or {}).get("failure")
        if info is not None and info.exception_type == SCRIPT_FAILED:
            raise _author_error(policy, agent_failure, info.exception_message)
        timed_out = info is not None and info.exception_type == AGENT_TIMEOUT
        # Any other exception (sandbox, host start, model endpoint, verifier) is infra, as is a
        # verifier that wrote no report: the probe never started (tests/test.sh).
        if info is not None and not timed_out and not _null_reward(report):
            raise TrialInfraError(f"{info.exception_type}: {info.exception_message}")
        if not report.is_file():
            raise TrialInfraError(f"verifier wrote no report ({trial.paths.verifier_dir})")
        if lost := _lost_artifacts(trial.paths.artifacts_dir):
            # Harbor collects artifacts best-effort: a failed transfer leaves the verifier with
            # nothing. Only when the transfer ran and failed on the solver's own files is that
            # the solver's doing; the sandbox machinery failing is infra, never a 0.
            causes = _transfer_failures(trial.paths.trial_dir / "sandbox")
            if "command" not in causes:
                raise TrialInfraError(f"the solver sandbox's {', '.join(lost)} could not be "
                                      f"collected for the verifier ({', '.join(causes) or 'no record'})")
            agent_failure = agent_failure or {
                "type": "DeliveryUncollectable",
                "message": f"{', '.join(lost)} could not be read out of the solver sandbox",
                "evidence": {"transfer_failures": causes["command"]}}
        delivered = list(trial.paths.artifacts_dir.rglob("result.blend"))
        if timed_out:
            agent_failure = {"type": "AgentTimeout", "message": info.exception_message}
        return TrialRun(delivered[0] if delivered else None, report, timed_out,
                        _solver_failure(agent_failure, report),
                        cost=trial_cost(result, trial.paths.trial_dir),
                        trial_dir=trial.paths.trial_dir)


class LocalBackend(TrialBackend):
    """Unsandboxed: the solver script and the probe run as plain Blender subprocesses."""

    async def run(self, task_dir: Path, policy: Policy, scripts: Path, work: Path,
                  before_verifier: BeforeVerifier | None = None, prestart_next: bool = False) -> TrialRun:
        started = time.monotonic()
        workspace = work / "workspace"
        shutil.copytree(task_dir / "environment" / "workspace", workspace)
        delivery = workspace / DELIVERY
        delivery.parent.mkdir(parents=True, exist_ok=True)
        if policy.kind == "model" or not policy.own_agent:  # Harbor's own agents need Harbor
            raise TrialInfraError("the local backend runs this project's scripted policies only")
        if policy.script is None:
            shutil.copyfile(workspace / "inputs" / "start.blend", delivery)
        else:
            script = (scripts / policy.script).resolve()
            solver_log = work / "logs" / "solver.log"
            try:
                await runner.run(BLENDER_SCRIPTS / "apply_script.py",
                                 ["--in", "inputs/start.blend", "--out", DELIVERY, "--script", str(script)],
                                 LOCAL, cwd=workspace, timeout=1800, log=solver_log,
                                 authored={str(script): script})
            except ScriptFailed as exc:  # a traceback through the policy's script (no other: infra)
                from sandbox.agents.scripted import script_exception
                output = solver_log.read_text(errors="replace")
                exception, line = script_exception(output, str(script))
                raise _author_error(policy, {"type": "ScriptRaised", "message": exception, "evidence": {
                    "line": line, "output": output[-2000:]}}, str(exc)) from None
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
        probe = ["--blend", str(delivered), "--task", str(tests / "task.json"),
                 "--rubric", str(tests / "rubric.json"), "--out", str(report)]
        probe_started = verifier / "logs" / "probe-started.json"
        try:
            await runner.run(tests / "rule_probe.py", [*probe, "--started", str(probe_started)], LOCAL,
                             cwd=verifier, timeout=600, log=work / "logs" / "verifier.log")
        except BlenderProcessError as exc:
            # As tests/test.sh: killed or timed out after it opened the delivery, the delivery
            # broke it (a 0); before that, or a Python error, the verifier failed (infra).
            if not probe_started.is_file() or (exc.returncode is not None and exc.returncode >= 0):
                raise
            problem = "DeliveryHungProbe" if exc.returncode is None else "DeliveryCrashedProbe"
            await runner.run(tests / "rule_probe.py",
                             [*probe, "--delivery-problem", problem, "--detail", str(exc).splitlines()[0]],
                             LOCAL, cwd=verifier, timeout=600, log=work / "logs" / "verifier-rerun.log")
        # Wall time only: the scripts and the probe run as plain subprocesses in no cgroup of
        # their own (no CPU account), no agent runs (no agent phase, steps, model calls or
        # tokens), and there is no Harbor trial directory to keep as evidence.
        return TrialRun(delivered if delivered.is_file() else None, report,
                        failure=_solver_failure(None, report),
                        cost=MeasuredCost(wall_sec=round(time.monotonic() - started, 3)))


def trial_cost(result, trial_dir: Path | None) -> MeasuredCost:
    """What one Harbor trial spent, from its `TrialResult` (or the same fields parsed from
    `result.json`) and the sandbox's own record under `<trial_dir>/sandbox/`.

    * `wall_sec`: trial started -> finished; `agent_sec`: the agent execution phase;
    * `model_calls`, `agent_steps`: the agent's metadata. The LLM agent records `steps` (one
      model call each) and `tool_calls` (MCP calls into the sandbox, a count); the scripted
      agent makes no model call and records its MCP calls as a list (`agent_steps` is always
      the MCP tool calls made); an agent recording neither leaves them None;
    * tokens: the agent context's `n_input_tokens` / `n_output_tokens` (a scripted agent: 0);
    * `sandbox_cpu_sec`: the solver and verifier sandboxes' cgroup CPU time;
    * `gpu_sec`: never measured on these machines.
    """
    agent = getattr(result, "agent_result", None)
    metadata = (getattr(agent, "metadata", None) or {}) if agent is not None else {}
    scripted = bool(metadata.get("scripted"))
    model_calls = metadata.get("steps")
    if not isinstance(model_calls, int) or isinstance(model_calls, bool):
        model_calls = 0 if scripted else None
    steps = metadata.get("tool_calls")
    agent_steps = len(steps) if isinstance(steps, list) else steps if isinstance(steps, int) else None
    tokens_in = getattr(agent, "n_input_tokens", None) if agent is not None else None
    tokens_out = getattr(agent, "n_output_tokens", None) if agent is not None else None
    if scripted:  # no model: nothing was sent or received
        tokens_in, tokens_out = tokens_in or 0, tokens_out or 0
    return MeasuredCost(
        wall_sec=_seconds(getattr(result, "started_at", None), getattr(result, "finished_at", None)) or 0.0,
        agent_sec=_phase_seconds(getattr(result, "agent_execution", None)),
        model_calls=model_calls, input_tokens=tokens_in, output_tokens=tokens_out,
        agent_steps=agent_steps,
        sandbox_cpu_sec=sandbox_cpu_seconds(trial_dir / "sandbox") if trial_dir else None,
        gpu_sec=None)


def sandbox_cpu_seconds(sandbox_logs: Path) -> float | None:
    """CPU seconds of every sandbox session (solver and verifier) of a trial: the sum of
    `cpu_usage_ns` (cgroup cpuacct, the whole trial group) over the `stop` events of
    `<sandbox_logs>/*.jsonl` (sandbox/isolation/execlog.py); None when no event carries it."""
    total, seen = 0, False
    for log in sorted(sandbox_logs.glob("*.jsonl")) if sandbox_logs.is_dir() else []:
        for line in log.read_text(encoding="utf-8").splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue  # a line cut short by a dying worker
            if not isinstance(event, dict) or event.get("event") != "stop":
                continue
            usage = event.get("cpu_usage_ns")
            if isinstance(usage, int) and not isinstance(usage, bool):
                total, seen = total + usage, True
    return round(total / 1e9, 3) if seen else None


def _seconds(started, finished) -> float | None:
    if started is None or finished is None:
        return None
    return round(max(0.0, (finished - started).total_seconds()), 3)


def _phase_seconds(timing) -> float | None:
    if timing is None:
        return None
    return _seconds(getattr(timing, "started_at", None), getattr(timing, "finished_at", None))


def _author_error(policy: Policy, failure: dict | None, fallback: str) -> ApplicationError:
    """The draft's own script failed: named by its path in the package, with the exception."""
    failure = failure or {"type": "ScriptRaised", "message": fallback.strip().splitlines()[-1]}
    evidence = failure.get("evidence") or {}
    line = evidence.get("line")
    where = f"{policy.script}, line {line}" if line else policy.script
    return author_script_failed(
        f"{where}: {failure['message']}", file=policy.script, type=failure["type"],
        exception=failure["message"], line=line,
        log_tail=(evidence.get("output") or evidence.get("log_tail") or "")[-2000:])


def _solver_failure(agent_failure: dict | None, report: Path) -> TrialFailure | None:
    """What the solver broke: the agent's record (host died or hung, out of time) first, else
    the verifier's delivery problem (missing, not a .blend, truncated, broke the probe)."""
    problem = json.loads(report.read_text()).get("delivery_problem")
    if agent_failure:
        evidence = {**(agent_failure.get("evidence") or {}), "delivery_problem": problem}
        return TrialFailure("solver", agent_failure["type"], agent_failure["message"], evidence)
    if problem:
        return TrialFailure("solver", problem["type"], problem["detail"], {})
    return None


def _lost_artifacts(artifacts_dir: Path) -> list[str]:
    """Sources Harbor's artifact manifest records as failed to download."""
    from harbor.models.trial.artifact_manifest import ArtifactManifestEntry

    manifest = artifacts_dir / "manifest.json"
    if not manifest.is_file():
        return []
    entries = [ArtifactManifestEntry.model_validate(e) for e in json.loads(manifest.read_text())]
    return [e.source for e in entries if e.status == "failed"]


def _transfer_failures(sandbox_logs: Path) -> dict[str, list[dict]]:
    """The solver sandbox's failed downloads by cause (command | launch | timeout), from the
    sandbox's own record (sandbox/isolation/execlog.py)."""
    causes: dict[str, list[dict]] = {}
    for log in sorted(sandbox_logs.glob("*.jsonl")):
        if "__verifier__" in log.name:
            continue
        for line in log.read_text(encoding="utf-8").splitlines():
            event = json.loads(line)
            if event.get("event") == "transfer_failed" and event.get("what", "").startswith("download"):
                causes.setdefault(event.get("cause", "command"), []).append(
                    {k: event.get(k) for k in ("what", "return_code", "stderr", "error")})
    return causes


def _null_reward(report: Path) -> bool:
    """The verifier graded but a weighted channel had no score: Harbor sees no reward file,
    yet this is a recorded null (with its reason), not an infrastructure failure."""
    return report.is_file() and json.loads(report.read_text())["reward"] is None


# The heartbeat follows the trial's Blender host (sandbox/mcp_session.py HostLiveness,
# docs/failures.md "Chaos tests"): checked every LIVENESS_TICK_SEC; a host judged silent for
# HOST_QUIET_SEC gets no heartbeat; one silent for the whole heartbeat timeout is killed with
# its trial, and the attempt is left to the server's heartbeat timeout.
LIVENESS_TICK_SEC = 1.0
HOST_QUIET_SEC = 3.0  # a live host answers within milliseconds; its CPU shows within a tick
HOST_SILENCE_SEC = 60.0  # the limit where no heartbeat timeout applies (outside an activity)
HEARTBEAT_THROTTLE = 0.8  # the SDK sends a heartbeat at most every 0.8 x the heartbeat timeout,
MAX_HEARTBEAT_THROTTLE_SEC = 2.0  # and on gpu workers at most every 2 s (workers/pools.py)
# How late a busy server may fire a heartbeat timeout: with 2 s, a clean-clone `make test` on 2
# loaded cores saw the worker's own TrialInfraError reach the server first (the chaos test of a
# frozen host), so the retry could have come back to this worker's freed slot.
SERVER_TIMER_LAG_SEC = 10.0
TRIAL_STOP_SEC = 60.0  # a cancelled trial's own cleanup (it stops its sandboxes) at most


async def _heartbeating(coro, what: str):
    """Await `coro` (a Harbor trial), heartbeating while it lives, so that a lost worker's trial
    is retried elsewhere, and so is one whose Blender host stopped answering before the agent
    acted: then the host is killed, the trial cancelled (nothing of it is stored), and this
    worker keeps the activity's slot until the server has timed the attempt out (a retry goes
    to another worker when one is free), then raises TrialInfraError. Cancelling the activity
    cancels the trial too."""
    from sandbox.mcp_session import HostLiveness, watching

    liveness = HostLiveness()
    with watching(liveness):  # the trial's task, and every session started in it, see it
        task = asyncio.ensure_future(coro)
    info = activity.info() if activity.in_activity() else None
    timeout = info.heartbeat_timeout.total_seconds() if info and info.heartbeat_timeout else None
    last_beat = time.monotonic()
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=LIVENESS_TICK_SEC)
            if done:
                return task.result()
            silent = liveness.silent_sec()
            if silent is None or silent < HOST_QUIET_SEC:
                if info is not None:
                    activity.heartbeat(f"{what} running")
                last_beat = time.monotonic()
            elif silent >= (timeout or HOST_SILENCE_SEC):
                break
    except asyncio.CancelledError:
        await _stop_trial(task)
        raise
    killed = liveness.kill_silent_hosts(silent)
    await _stop_trial(task)
    message = (f"{what}: the Blender host gave no sign of life for {silent:.0f}s before the "
               f"agent's first action; killed (pids {killed}) with its trial")
    if timeout:
        # The server's deadline is `timeout` after the last heartbeat it received, which the
        # SDK may have sent up to its throttle interval after this worker made it.
        throttle = min(timeout * HEARTBEAT_THROTTLE, MAX_HEARTBEAT_THROTTLE_SEC)
        hold = last_beat + timeout + throttle + SERVER_TIMER_LAG_SEC - time.monotonic()
        activity.logger.warning("%s; no heartbeat since %.0fs: holding the slot %.0fs more, "
                                "until the server has timed the attempt out", message,
                                time.monotonic() - last_beat, max(0.0, hold))
        await asyncio.sleep(max(0.0, hold))
    raise TrialInfraError(message)


async def _stop_trial(task: asyncio.Future) -> None:
    """Cancel the trial and let it stop its sandboxes (Harbor's cleanup is shielded)."""
    task.cancel()
    await asyncio.wait({task}, timeout=TRIAL_STOP_SEC)
    if task.done() and not task.cancelled():
        task.exception()  # retrieved: whatever it ended with, this attempt is over


PRESTART_ENV = "ARKEVO_PRESTART_HOSTS"  # pre-started solver sandboxes per gpu worker; 0: none


def warm_sandbox() -> None:
    """At a gpu worker's start, with the sandbox backend: its fork server imports bpy now, not
    during the first trial (sandbox/isolation/trial.py start_fork_server). A problem is only
    logged: the first trial meets it again and fails as infra, naming it."""
    if backend_kind() != "sandbox":
        return
    from sandbox.isolation.trial import start_fork_server

    try:
        start_fork_server()
    except Exception as exc:  # noqa: BLE001 - the worker still starts; trials launch cold
        logging.getLogger(__name__).warning("the sandbox fork server did not start: %s", exc)


def backend_kind() -> str:
    return os.environ.get("ARKEVO_TRIAL_BACKEND", "sandbox")


def backend_from_env(prestart: int = 0) -> TrialBackend:
    """The backend ARKEVO_TRIAL_BACKEND names, keeping `prestart` waiting solver sandboxes
    (workers/pools.py prestart_capacity) unless ARKEVO_PRESTART_HOSTS says how many."""
    kind = backend_kind()
    if kind == "local":
        return LocalBackend()
    if kind == "sandbox":
        raw = os.environ.get(PRESTART_ENV, "").strip()
        if raw:
            if not raw.isdigit():
                raise ValueError(f"{PRESTART_ENV}={raw!r}: expected a count (0: no pre-started hosts)")
            prestart = int(raw)
        return HarborSandboxBackend(prestart=prestart)
    raise ValueError(f"ARKEVO_TRIAL_BACKEND={kind!r}: expected 'sandbox' or 'local'")
