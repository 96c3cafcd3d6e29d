"""MCP agents end to end in real bpy: ScriptedMcpAgent (nop, oracle, a failing script) on a real
robot-carry workspace graded by the rule probe, and LlmAgent against a FAKE OpenAI-compatible
endpoint (tests/fakes/openai_server.py; no model can be reached from these machines).

Most tests run the agents against ``LocalStandInEnvironment`` below, a TEST STAND-IN for
``sandbox.environment.ArkevoSandboxEnvironment``: plain subprocesses, no isolation, with the
sandbox's path contract mapped onto a temporary folder (``/workspace`` -> the test's workspace,
``/opt/arkevo/runtime`` on PYTHONPATH -> ``sandbox/runtime``).  It offers exactly what the agents
may use: ``exec``, ``spawn`` and ``python``.  The last tests run both agents through the real
``ArkevoSandboxEnvironment`` (bwrap, slot uid, Landlock, loopback-only network namespace).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from harbor.agents.factory import AgentFactory
from harbor.environments.base import ExecResult
from harbor.models.trial.config import AgentConfig, EnvironmentConfig, TaskConfig, TrialConfig
from harbor.trial.trial import Trial
from harbor.models.agent.context import AgentContext
from harbor.models.trajectories import Trajectory

from modelapi.client import ChatClient, Timeouts
from modelapi.retry import SessionRetry
from modelapi.retry_after import parse_retry_after
from sandbox.agents.llm import LlmAgent, LlmAgentOptions, ModelEndpointError, ModelEndpointUnavailable
from observability.redaction import Redactor, is_secret_name
from sandbox.agents.scripted import ScriptedMcpAgent, ScriptFailed
from sandbox.mcp_session import BlenderHostDied, BlenderMcpSession, McpSessionConfig, McpSessionError
from tests.adversarial.sandbox_helpers import (
    IMPORT_PATH as SANDBOX_IMPORT_PATH, make_env, read_reward, requires_landlock, sandbox_kwargs, started,
    write_harbor_task,
)
from tests.fakes.openai_server import FakeOpenAIServer, error, final, slow, tool_call, tool_calls

pytestmark = [pytest.mark.blender, pytest.mark.timeout(120)]

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "seeds" / "robot-carry"
DRAFT = SEED / "draft"
SECRET_KEY = "sk-fake-0123456789-do-not-leak"
OTHER_SECRET = "tok-fake-abcdef-987654"


class LocalStandInEnvironment:
    """TEST STAND-IN for ArkevoSandboxEnvironment -- NOT a sandbox.  Runs commands as plain
    subprocesses of this process with a minimal environment (nothing inherited, so no worker
    secret can reach them), maps the sandbox paths onto ``workspace``, records every spawn, and
    kills what it spawned on ``stop``."""

    def __init__(self, workspace: Path, home: Path) -> None:
        self.workspace, self.home = workspace, home
        self.spawned: list[tuple[list[str], dict[str, str], str | None]] = []
        self._procs: list[asyncio.subprocess.Process] = []

    @property
    def python(self) -> str:
        return sys.executable  # the venv python: bpy + blender_mcp, as inside the sandbox

    def _cwd(self, cwd: str | None) -> Path:
        cwd = cwd or "/workspace"
        if cwd != "/workspace" and not cwd.startswith("/workspace/"):
            raise AssertionError(f"stand-in maps only /workspace, got cwd {cwd}")
        return self.workspace / cwd.removeprefix("/workspace").lstrip("/")

    def _env(self, env: dict[str, str] | None) -> dict[str, str]:
        return {"PATH": "/usr/bin:/bin", "HOME": str(self.home), "LANG": "C.UTF-8",
                "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(ROOT / "sandbox" / "runtime"),
                **(env or {})}

    async def spawn(self, argv: list[str], *, env: dict[str, str] | None = None,
                    cwd: str | None = None) -> asyncio.subprocess.Process:
        self.spawned.append((list(argv), dict(env or {}), cwd))
        proc = await asyncio.create_subprocess_exec(
            *argv, cwd=self._cwd(cwd), env=self._env(env), start_new_session=True,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        self._procs.append(proc)
        return proc

    async def exec(self, command: str, cwd: str | None = None, env: dict[str, str] | None = None,
                   timeout_sec: int | None = None, user: str | int | None = None) -> ExecResult:
        proc = await asyncio.create_subprocess_shell(
            command, cwd=self._cwd(cwd), env=self._env(env), start_new_session=True,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(proc.communicate(), timeout_sec)
        return ExecResult(stdout=out.decode(), stderr=err.decode(), return_code=proc.returncode)

    async def stop(self, delete: bool = True) -> None:
        for proc in self._procs:
            if proc.returncode is None:
                os.killpg(proc.pid, signal.SIGKILL)
                await proc.wait()


def run_py(*args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=90, cwd=ROOT)
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    return done


@pytest.fixture(scope="session")
def start_blend(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("robot-carry")
    run_py("blender/build_workspace.py", "--reference", str(SEED / "materials" / "build_reference.py"),
           "--start-mode", "continue", "--out-start", str(out / "start.blend"),
           "--out-reference", str(out / "ref.blend"))
    return out / "start.blend"


@pytest.fixture
async def standin(tmp_path, start_blend):
    """A fresh solver workspace (inputs/start.blend + public spec, empty outputs/) and the stand-in."""
    ws = tmp_path / "workspace"
    (ws / "inputs").mkdir(parents=True)
    (ws / "outputs").mkdir()
    shutil.copy(start_blend, ws / "inputs" / "start.blend")
    shutil.copytree(DRAFT / "public", ws, dirs_exist_ok=True)
    (tmp_path / "home").mkdir()
    env = LocalStandInEnvironment(ws, tmp_path / "home")
    yield env
    await env.stop()


def probe(delivery: Path, out: Path) -> dict:
    run_py("verifiers/rule_probe.py", "--blend", str(delivery), "--task", str(DRAFT / "task.json"),
           "--rubric", str(DRAFT / "rubric.json"), "--out", str(out))
    return json.loads(out.read_text())


def object_names(blend: Path) -> list[str]:
    done = run_py("-c", "import bpy, json\n"
                        f"bpy.ops.wm.open_mainfile(filepath={str(blend)!r}, load_ui=False)\n"
                        "print('NAMES=' + json.dumps(sorted(o.name for o in bpy.data.objects)))")
    return json.loads(done.stdout.split("NAMES=", 1)[1])


# --- scripted policies -------------------------------------------------------------------


async def run_scripted(standin, tmp_path, **kwargs) -> AgentContext:
    agent = ScriptedMcpAgent(logs_dir=tmp_path / "agent", **kwargs)
    context = AgentContext()
    await agent.setup(standin)
    await agent.run("(instruction unused by scripted policies)", standin, context)
    return context


async def test_nop_delivers_the_untouched_scene(standin, tmp_path):
    context = await run_scripted(standin, tmp_path, policy="nop")
    delivery = standin.workspace / "outputs" / "result.blend"
    assert context.metadata["delivery"] == str(delivery)
    assert context.metadata["label"].startswith("scripted policy")
    assert list(context.metadata["seconds"]) == ["session start", "save", "session stop"]  # no script
    report = probe(delivery, tmp_path / "report.json")
    assert report["rule_score"] < 0.7 and not report["success"]
    # the agent spawned the host and the stock server, through the environment only
    assert [argv[1:3] for argv, _, _ in standin.spawned] == [["-m", "blender_mcp_host"],
                                                             ["-m", "blender_mcp.server"]]
    assert (tmp_path / "agent" / "mcp-host.log").read_text()


async def test_oracle_solves_the_task_through_mcp(standin, tmp_path):
    solve = DRAFT / "solution" / "solve.py"
    context = await run_scripted(standin, tmp_path, policy="oracle", script_path=str(solve))
    assert context.metadata["script"] == "solve.py"
    assert context.metadata["tool_calls"] == ["execute_blender_code", "execute_blender_code"]
    # each step's wall, for bench/trial_breakdown.py
    assert list(context.metadata["seconds"]) == ["session start", "script", "save", "session stop"]
    assert all(v >= 0 for v in context.metadata["seconds"].values())
    # the sandbox got the solution only as tool-call text, never as a file
    assert not list(standin.workspace.rglob("solve.py"))
    report = probe(standin.workspace / "outputs" / "result.blend", tmp_path / "report.json")
    assert report["rule_score"] == 1.0, report  # the total waits for the VL judgement


async def test_failing_script_fails_the_run_and_delivers_nothing(standin, tmp_path):
    script = tmp_path / "broken.py"
    script.write_text("import bpy\n\nbpy.data.objects['NoSuchObject'].location.x = 1\n")
    with pytest.raises(ScriptFailed, match=r"broken\.py.*line 3|KeyError"):
        await run_scripted(standin, tmp_path, policy="script", script_path=str(script))
    assert not (standin.workspace / "outputs" / "result.blend").exists()


async def test_session_failures_are_infrastructure_errors(standin, tmp_path):
    config = McpSessionConfig(blend="inputs/missing.blend", startup_timeout_sec=60)
    with pytest.raises(McpSessionError, match=r"exited with code 2 before it was ready(.|\n)*not found"):
        async with BlenderMcpSession(standin, config):
            pass
    assert len(standin.spawned) == 1 and standin._procs[0].returncode == 2

    # From the first tool call on, a dead host is typed: the agent decides whose call it was.
    async with BlenderMcpSession(standin) as session:
        with pytest.raises(BlenderHostDied, match="Blender host exited with code 3") as died:
            await session.call_tool("execute_blender_code", {"code": "import os\nos._exit(3)"})
    assert died.value.evidence["tool_call"] == 1 and died.value.evidence["exit_code"] == 3


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_a_known_port_starts_the_server_alongside_the_host(standin, tmp_path, monkeypatch):
    """With the port known ahead (configured here; the sandbox's own loopback in production), the
    MCP server is spawned before the session waits for the host, and finds it at its first call."""
    spawned_when_waiting = []
    await_ready = BlenderMcpSession._await_ready

    async def recording(self):
        spawned_when_waiting.append([argv[2] for argv, _, _ in standin.spawned])
        return await await_ready(self)

    monkeypatch.setattr(BlenderMcpSession, "_await_ready", recording)
    port = _free_port()
    async with BlenderMcpSession(standin, McpSessionConfig(port=port)) as session:
        result = await session.call_tool("execute_blender_code", {"code": "import bpy\nprint(len(bpy.data.objects))"})
        assert not result.isError and session.port == port
    assert spawned_when_waiting == [["blender_mcp_host", "blender_mcp.server"]]
    assert standin.spawned[1][1]["BLENDER_PORT"] == str(port)

    # A host that never gets ready is still the start's infrastructure failure; both processes stop.
    bad = McpSessionConfig(blend="inputs/missing.blend", port=_free_port(), startup_timeout_sec=60)
    with pytest.raises(McpSessionError, match="exited with code 2 before it was ready"):
        async with BlenderMcpSession(standin, bad):
            pass
    assert [p.returncode is not None for p in standin._procs[2:]] == [True, True]


def test_scripted_options_are_validated(tmp_path):
    loaded = AgentFactory.create_agent_from_import_path(
        "sandbox.agents.scripted:ScriptedMcpAgent", logs_dir=tmp_path, policy="nop")
    assert isinstance(loaded, ScriptedMcpAgent) and loaded.name() == "arkevo-scripted-mcp"
    with pytest.raises(ValueError, match="needs script_path"):
        ScriptedMcpAgent(logs_dir=tmp_path, policy="oracle")
    with pytest.raises(ValueError, match="not found"):
        ScriptedMcpAgent(logs_dir=tmp_path, policy="script", script_path=str(tmp_path / "missing.py"))
    with pytest.raises(ValueError, match="Unknown option"):
        ScriptedMcpAgent(logs_dir=tmp_path, policy="nop", polcy="typo")


# --- LLM agent against the fake endpoint ---------------------------------------------------


@pytest.fixture
def llm_env(monkeypatch):
    """Worker environment for LlmAgent, with secrets whose values must never be recorded."""
    def configure(base_url: str) -> None:
        monkeypatch.setenv("ARKEVO_LLM_BASE_URL", base_url)
        monkeypatch.setenv("ARKEVO_LLM_MODEL", "fake-model")
        monkeypatch.setenv("ARKEVO_LLM_API_KEY", SECRET_KEY)
        monkeypatch.setenv("ARKEVO_TEST_TOKEN", OTHER_SECRET)
    return configure


FAST = {"backoff_initial_sec": 0.01, "backoff_max_sec": 0.05}


def assert_no_secret(text: str, where: str) -> None:
    for secret in (SECRET_KEY, OTHER_SECRET):
        assert secret not in text, f"secret value found in {where}"


async def test_llm_agent_tool_conversation(standin, tmp_path, llm_env):
    make_cube = ("import bpy\nbpy.ops.mesh.primitive_cube_add(size=0.3, location=(0, 0, 3))\n"
                 "bpy.context.object.name = 'LlmCube'\n"
                 f"open('outputs/note.txt', 'w').write('token={OTHER_SECRET}')\n"
                 f"print('made', bpy.context.object.name, '{OTHER_SECRET}')\n")
    script = [
        error(429, retry_after="1"),
        tool_calls(("get_scene_info", {}), ("execute_blender_code", '{"code": "print(1)"'),
                   ("no_such_tool", {}), content="Looking first."),
        error(500),
        tool_call("execute_blender_code", {"code": make_cube}),
        final("Added LlmCube."),
    ]
    with FakeOpenAIServer(script) as fake:
        llm_env(fake.base_url)
        agent = LlmAgent(logs_dir=tmp_path / "agent", max_steps=10, **FAST)
        context = AgentContext()
        await agent.setup(standin)
        await agent.run("Add a small cube named LlmCube above the robot.", standin, context)

    reqs = fake.requests
    assert len(reqs) == 5
    assert reqs[1].at - reqs[0].at >= 1.0, "Retry-After: 1 was not honoured"
    assert all(r.headers["Authorization"] == f"Bearer {SECRET_KEY}" for r in reqs)
    for r in reqs:
        assert_no_secret(r.body, "a request body")
    assert reqs[0].json["model"] == "fake-model"
    assert "execute_blender_code" in {t["function"]["name"] for t in reqs[0].json["tools"]}
    assert "search_assets" not in {t["function"]["name"] for t in reqs[0].json["tools"]}

    # turn 1's three calls were all answered, the malformed ones with errors; the 500 was retried
    tool_msgs = [m for m in reqs[3].json["messages"] if m["role"] == "tool"]
    assert reqs[2].body == reqs[3].body and len(tool_msgs) == 3
    assert "Arm.Base" in tool_msgs[0]["content"]
    assert tool_msgs[1]["content"].startswith("Error: the arguments are not valid JSON")
    assert tool_msgs[2]["content"].startswith("Error: unknown tool 'no_such_tool'")
    last_tool = [m for m in reqs[4].json["messages"] if m["role"] == "tool"][-1]
    assert "made LlmCube [REDACTED:ARKEVO_TEST_TOKEN]" in last_tool["content"]

    # the secret in the model's code was redacted before it entered the sandbox
    assert (standin.workspace / "outputs" / "note.txt").read_text() == "token=[REDACTED:ARKEVO_TEST_TOKEN]"
    for argv, env, _ in standin.spawned:
        assert_no_secret(json.dumps([argv, env]), "a spawn")

    delivery = standin.workspace / "outputs" / "result.blend"
    assert "LlmCube" in object_names(delivery)

    meta = context.metadata
    assert meta["stop_reason"] == "final_answer" and meta["steps"] == 3
    assert meta["tool_calls"] == 2 and meta["malformed_tool_calls"] == 2
    assert meta["endpoint_retries"] == 2 and meta["delivery"] == str(delivery)
    assert context.n_input_tokens == 300 and context.n_output_tokens == 60

    text = (tmp_path / "agent" / "trajectory.json").read_text()
    assert_no_secret(text, "the trajectory")
    trajectory = Trajectory.model_validate_json(text)
    assert [s.source for s in trajectory.steps] == ["system", "user", "agent", "agent", "agent", "agent"]
    assert [len(s.tool_calls or []) for s in trajectory.steps[2:]] == [3, 1, 0, 1]
    assert trajectory.steps[-1].llm_call_count == 0  # the delivery save: no model involved
    assert trajectory.extra["stop_reason"] == "final_answer"
    assert [r["reason"].split(": ")[1][:8] for r in trajectory.extra["endpoint_retries"]] == ["HTTP 429", "HTTP 500"]
    assert trajectory.extra["endpoint_retries"][0]["delay_sec"] >= 1.0


async def test_llm_agent_stops_at_its_step_budget(standin, tmp_path, llm_env):
    look = tool_call("execute_blender_code", {"code": "import bpy\nprint(len(bpy.data.objects))"})
    with FakeOpenAIServer([look, look, final("never reached")]) as fake:
        llm_env(fake.base_url)
        agent = LlmAgent(logs_dir=tmp_path / "agent", max_steps=2, **FAST)
        context = AgentContext()
        await agent.run("Keep looking.", standin, context)
    assert len(fake.requests) == 2
    assert context.metadata["stop_reason"] == "step_budget_exhausted"
    assert (standin.workspace / "outputs" / "result.blend").is_file()
    trajectory = json.loads((tmp_path / "agent" / "trajectory.json").read_text())
    assert trajectory["extra"]["stop_reason"] == "step_budget_exhausted"
    assert len(trajectory["steps"]) == 2 + 2 + 1


async def test_cancelled_llm_run_stops_blender_and_keeps_its_record(standin, tmp_path, llm_env):
    """Harbor ends a run past its timeout by cancelling it: the sandbox processes must go too."""
    with FakeOpenAIServer([slow(final("too late"), 60)]) as fake:
        llm_env(fake.base_url)
        agent = LlmAgent(logs_dir=tmp_path / "agent", **FAST)
        context = AgentContext()
        task = asyncio.create_task(agent.run("Take your time.", standin, context))
        async with asyncio.timeout(60):
            while not fake.requests:  # Blender is up and the model has been asked
                await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert [p.returncode is not None for p in standin._procs] == [True, True]
    assert context.metadata["stop_reason"] == "cancelled"
    trajectory = json.loads((tmp_path / "agent" / "trajectory.json").read_text())
    assert trajectory["extra"]["stop_reason"] == "cancelled"


# --- the agent's endpoint calls: its options on the shared client (no Blender) ---------------
HI = [{"role": "user", "content": "hi"}]


def _session(fake: FakeOpenAIServer, **opts) -> tuple[ChatClient, SessionRetry]:
    """The client and the in-place retry as LlmAgent.run builds them from its options."""
    o = LlmAgentOptions(**{**FAST, **opts})
    client = ChatClient(fake.base_url, "fake-model", SECRET_KEY, redactor=Redactor({"ARKEVO_LLM_API_KEY": SECRET_KEY}),
                        timeouts=Timeouts(o.request_timeout_sec, o.connect_timeout_sec))
    return client, SessionRetry(o.max_attempts, o.backoff_initial_sec, o.backoff_max_sec)


async def test_request_timeout_is_retried():
    with FakeOpenAIServer([slow(final("late"), 5), final("on time")]) as fake:
        client, retry = _session(fake, request_timeout_sec=0.3)
        reply = await retry.call(lambda: client.complete(HI))
        await client.aclose()
    assert reply.content == "on time"
    assert "ReadTimeout" in retry.retries[0]["reason"]


async def test_endpoint_that_keeps_failing_is_an_infrastructure_error():
    with FakeOpenAIServer([error(503), error(502), error(429, retry_after="0")]) as fake:
        client, retry = _session(fake, max_attempts=3)
        with pytest.raises(ModelEndpointUnavailable, match="after 3 attempts; last: .*HTTP 429"):
            await retry.call(lambda: client.complete(HI))
        await client.aclose()
    assert len(fake.requests) == 3 and len(retry.retries) == 2


async def test_client_errors_are_not_retried_and_are_redacted():
    with FakeOpenAIServer([error(401, message=f"bad key {SECRET_KEY}")]) as fake:
        client, retry = _session(fake)
        with pytest.raises(ModelEndpointError) as raised:
            await retry.call(lambda: client.complete(HI))
        await client.aclose()
    assert len(fake.requests) == 1
    assert "HTTP 401" in str(raised.value) and SECRET_KEY not in str(raised.value)
    assert "[REDACTED:ARKEVO_LLM_API_KEY]" in str(raised.value)


def test_retry_after_forms():
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # a date in the past


def test_redaction():
    assert all(map(is_secret_name, ["OPENAI_API_KEY", "github_token", "DB_PASSWORD", "AWS_SECRET",
                                    "ARKEVO_LLM_API_BASE"]))
    assert not is_secret_name("ARKEVO_LLM_MODEL")
    redactor = Redactor.from_environ({"A_KEY": "abcd1234", "LONG_KEY": "xxabcd1234yy", "B_TOKEN": "false",
                                      "PATH": "/usr/bin", "SHORT_KEY": "ab", "SEVEN_KEY": "prod-eu"})
    assert redactor.names == ["A_KEY", "LONG_KEY"]  # under 8 characters, or a word: not a secret
    assert redactor.text("k=xxabcd1234yy / abcd1234") == "k=[REDACTED:LONG_KEY] / [REDACTED:A_KEY]"
    # whole tokens only: inside a longer word a value is someone else's text, beside
    # punctuation it is still the secret
    assert redactor.text("zabcd1234 abcd12345 prod-eu-1") == "zabcd1234 abcd12345 prod-eu-1"
    assert redactor.text('"abcd1234",key=abcd1234&x_abcd1234_y') == (
        '"[REDACTED:A_KEY]",key=[REDACTED:A_KEY]&x_[REDACTED:A_KEY]_y')
    assert redactor.value({"abcd1234": ["abcd1234", 3, False, ("abcd1234",)]}) == {
        "[REDACTED:A_KEY]": ["[REDACTED:A_KEY]", 3, False, ("[REDACTED:A_KEY]",)]}


# --- through the real sandbox ---------------------------------------------------------------


@pytest.fixture(scope="module")
def sandbox_base(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("sandbox-base")


@pytest.fixture
async def real_sandbox(tmp_path, start_blend, sandbox_base):
    """ArkevoSandboxEnvironment with the robot-carry workspace, started; stopped afterwards."""
    spec = {p.name: p.read_text() for p in (DRAFT / "public").iterdir()}
    env = make_env(tmp_path, "agent-trial", base_dir=sandbox_base, files=spec)
    inputs = tmp_path / "agent-trial" / "environment" / "workspace" / "inputs"
    inputs.mkdir()
    shutil.copy(start_blend, inputs / "start.blend")
    async with started(env):
        yield env


@requires_landlock
async def test_oracle_through_the_real_sandbox(real_sandbox, tmp_path):
    solve = DRAFT / "solution" / "solve.py"
    agent = ScriptedMcpAgent(logs_dir=tmp_path / "agent", policy="oracle", script_path=str(solve))
    context = AgentContext()
    await agent.setup(real_sandbox)
    await agent.run("(unused)", real_sandbox, context)
    assert context.metadata["delivery"] == "/workspace/outputs/result.blend"
    await real_sandbox.download_file("/workspace/outputs/result.blend", tmp_path / "result.blend")
    report = probe(tmp_path / "result.blend", tmp_path / "report.json")
    assert report["rule_score"] == 1.0, report  # the total waits for the VL judgement


@requires_landlock
async def test_llm_agent_through_the_real_sandbox(real_sandbox, tmp_path, llm_env):
    # The model's code records what the sandbox can see: its environment, and whether the
    # endpoint the worker talks to is reachable from inside (it must not be).
    probe_code = ("import bpy, json, os, socket\n"
                  "bpy.ops.mesh.primitive_uv_sphere_add(radius=0.2, location=(0, 0, 3))\n"
                  "bpy.context.object.name = 'SandboxSphere'\n"
                  "try:\n    socket.create_connection(('127.0.0.1', PORT), timeout=2).close()\n"
                  "    reach = 'reachable'\nexcept OSError as exc:\n    reach = type(exc).__name__\n"
                  "os.makedirs('outputs', exist_ok=True)\n"
                  "json.dump({'env': dict(os.environ), 'endpoint': reach}, open('outputs/seen.json', 'w'))\n"
                  "print('endpoint', reach)\n")
    with FakeOpenAIServer([]) as fake:
        port = int(fake.base_url.rsplit(":", 1)[1].split("/")[0])
        fake.script += [tool_call("execute_blender_code", {"code": probe_code.replace("PORT", str(port))}),
                        final("Sphere added.")]
        llm_env(fake.base_url)
        agent = LlmAgent(logs_dir=tmp_path / "agent", max_steps=4, **FAST)
        context = AgentContext()
        await agent.setup(real_sandbox)
        await agent.run("Add a sphere named SandboxSphere.", real_sandbox, context)
    assert context.metadata["stop_reason"] == "final_answer"
    await real_sandbox.download_file("/workspace/outputs/seen.json", tmp_path / "seen.json")
    await real_sandbox.download_file("/workspace/outputs/result.blend", tmp_path / "result.blend")
    seen = (tmp_path / "seen.json").read_text()
    assert_no_secret(seen, "the sandbox's environment")
    assert "ARKEVO_LLM" not in seen
    assert json.loads(seen)["endpoint"] != "reachable"
    assert "SandboxSphere" in object_names(tmp_path / "result.blend")
    assert_no_secret((tmp_path / "agent" / "trajectory.json").read_text(), "the trajectory")


GRADE_TRIAL_CUBE = """\
mkdir -p /logs/verifier
python3 - <<'PY'
import bpy
bpy.ops.wm.open_mainfile(filepath="/workspace/outputs/result.blend")
print(1.0 if "TrialCube" in bpy.data.objects else 0.0, file=open("/logs/verifier/reward.txt", "w"))
PY
"""


@requires_landlock
async def test_harbor_trial_runs_the_llm_agent_by_import_path(tmp_path, start_blend, sandbox_base, llm_env):
    """Harbor's own Trial: agent and environment loaded by import path, separate verifier."""
    task = write_harbor_task(tmp_path / "task", solve="true\n", test=GRADE_TRIAL_CUBE, separate=True,
                             workspace={"spec.md": "Add a cube named TrialCube.\n"})
    (task / "environment" / "workspace" / "inputs").mkdir()
    shutil.copy(start_blend, task / "environment" / "workspace" / "inputs" / "start.blend")
    make = "import bpy\nbpy.ops.mesh.primitive_cube_add(size=0.2)\nbpy.context.object.name = 'TrialCube'\n"
    with FakeOpenAIServer([tool_call("execute_blender_code", {"code": make}), final("done")]) as fake:
        llm_env(fake.base_url)
        config = TrialConfig(
            task=TaskConfig(path=task), trials_dir=tmp_path / "trials",
            agent=AgentConfig(import_path="sandbox.agents.llm:LlmAgent", kwargs={"max_steps": 5, **FAST}),
            environment=EnvironmentConfig(import_path=SANDBOX_IMPORT_PATH, kwargs=sandbox_kwargs(sandbox_base)))
        trial = await Trial.create(config)
        result = await trial.run()
    assert result.exception_info is None, result.exception_info
    assert read_reward(trial.paths.trial_dir) == 1.0
    assert result.agent_result.metadata["stop_reason"] == "final_answer"
    trajectory = Trajectory.model_validate_json((trial.paths.agent_dir / "trajectory.json").read_text())
    assert trajectory.agent.name == "arkevo-llm-mcp" and len(trajectory.steps) == 5
    for path in trial.paths.trial_dir.rglob("*"):
        if path.is_file() and path.suffix != ".blend":
            assert_no_secret(path.read_text(errors="replace"), str(path))
