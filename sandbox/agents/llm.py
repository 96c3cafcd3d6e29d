"""A model that operates Blender through MCP tools: a Chat Completions tool-calling loop.

    agent: {"import_path": "sandbox.agents.llm:LlmAgent", "kwargs": {"max_steps": 30}}

The endpoint is any OpenAI-compatible ``/chat/completions``, configured from the worker's
environment: ``ARKEVO_LLM_BASE_URL`` (e.g. ``https://host/v1``) and ``ARKEVO_LLM_API_KEY``; the
model is Harbor's ``model_name`` (a solver configuration names its model, docs/campaigns.md),
else ``ARKEVO_LLM_MODEL``; the option ``reasoning_effort`` goes into every request's body.  The
loop runs in the worker; the sandbox sees only MCP tool calls, so keys never enter it.

One step = one model call.  The MCP tools (``list_tools``) are offered as function tools; every
tool call is executed through the MCP session and its result fed back, until the model answers
without tool calls (``final_answer``) or ``max_steps`` calls were made
(``step_budget_exhausted``).  Either way the open scene is then saved as the delivery.
A malformed tool call (arguments that are not a JSON object, an unknown tool) is answered to the
model as an error tool result.  Requests go through the project's one chat client
(`modelapi.client`); the run is a live Blender session, so it owns its calls' retries
(`modelapi.retry.SessionRetry`): HTTP 429, 5xx and transport errors are retried in place with
exponential backoff and jitter, honouring Retry-After, up to ``max_attempts``; then
``ModelEndpointUnavailable`` is raised -- an infrastructure failure, never the model's 0.

After the model's first tool call, Blender is the model's to break: a host that dies, hangs
(no answer within ``mcp.tool_timeout_sec``) or cannot save ends the run normally with
``stop_reason`` ``blender_host_failed`` and the failure (kind ``solver``) in
``context.metadata["failure"]``; nothing more is saved, so the verifier grades the delivery as
it stands.  Before it (host start, MCP handshake), session failures are raised: infrastructure.

The trajectory is written as ATIF (``trajectory.json`` in the agent logs dir) with every secret
value of the worker's environment redacted (``observability.redaction``); tool arguments are
redacted before they are sent into the sandbox, tool outputs before the model sees them.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal, cast

from harbor.agents.capabilities import AgentCapabilities
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext
from harbor.models.trajectories import (
    Agent as AtifAgent,
    FinalMetrics,
    Metrics,
    Observation,
    ObservationResult,
    Step,
    ToolCall,
    Trajectory,
)
from harbor.utils.trajectory_utils import format_trajectory_json

from mcp import types
from mcp.shared.exceptions import McpError
from pydantic import Field

from sandbox.agents.base import McpAgentOptions, SandboxedMcpAgent
from observability.redaction import Redactor
from sandbox.mcp_session import (BlenderHostFailure, BlenderMcpSession, failure_record,
                                 require_spawning, save_code, tool_result_text)
# The endpoint errors are the agent's too: callers import them from here.
from modelapi.client import ChatClient, ChatReply, ModelEndpointError, ModelEndpointUnavailable, Timeouts  # noqa: F401
from modelapi.retry import SessionRetry

BASE_URL_ENV, MODEL_ENV, API_KEY_ENV = "ARKEVO_LLM_BASE_URL", "ARKEVO_LLM_MODEL", "ARKEVO_LLM_API_KEY"

# Stock blender_mcp tools that cannot work in the sandbox (network, telemetry, a GUI viewport).
UNUSABLE_TOOLS = ["disable_telemetry", "record_trajectory_feedback", "generate_3d", "search_assets",
                  "import_asset", "look"]

SYSTEM_PROMPT = """You operate Blender through tools. The task's starting scene ({blend}) \
is already open. The task's public files are in the working directory ({workdir}).
Use execute_blender_code to inspect and change the scene with bpy; print what you need to know.
When the task is done, answer with a short summary and no tool call. The open scene is then \
saved as your delivery ({delivery}); do not save over the starting scene."""


class LlmAgentOptions(McpAgentOptions):
    max_steps: int = Field(30, ge=1, description="model calls before the run ends")
    request_timeout_sec: float = Field(300.0, gt=0, description="read/write timeout of one model call")
    connect_timeout_sec: float = Field(10.0, gt=0)
    max_attempts: int = Field(6, ge=1, description="tries per model call (429, 5xx, transport errors)")
    backoff_initial_sec: float = Field(1.0, ge=0)
    backoff_max_sec: float = Field(60.0, ge=0)
    temperature: float | None = None
    max_tokens: int | None = Field(None, ge=1)
    max_tool_output_chars: int = Field(20_000, ge=200, description="tool output fed back, truncated")
    exclude_tools: list[str] = Field(default_factory=lambda: list(UNUSABLE_TOOLS))
    reasoning_effort: Literal["minimal", "low", "medium", "high"] | None = Field(
        None, description="sent as the request's reasoning_effort; None: the endpoint's default")


def openai_tools(tools: list[types.Tool]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {
        "name": t.name, "description": t.description or "", "parameters": t.inputSchema}}
        for t in tools]


def parse_arguments(raw: Any) -> tuple[dict[str, Any] | None, str | None]:
    """(arguments, None) or (None, error message for the model)."""
    if isinstance(raw, dict):
        return raw, None
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}, None
    try:
        parsed = json.loads(raw)
    except (TypeError, ValueError) as exc:
        return None, f"the arguments are not valid JSON ({exc}); send a JSON object"
    if not isinstance(parsed, dict):
        return None, f"the arguments must be a JSON object, got {type(parsed).__name__}"
    return parsed, None


def normalise_calls(raw_calls: Any, step: int) -> list[dict[str, Any]]:
    """Tool calls as they go back into the history: every call has an id and a function name,
    so each gets exactly one answering tool message, even a malformed one."""
    calls = []
    for i, raw in enumerate(raw_calls if isinstance(raw_calls, list) else []):
        raw = raw if isinstance(raw, dict) else {}
        function = cast(dict[str, Any], raw.get("function")) if isinstance(raw.get("function"), dict) else {}
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments or {})
        calls.append({"id": str(raw.get("id") or f"call_{step}_{i}"), "type": "function",
                      "function": {"name": str(function.get("name") or ""), "arguments": arguments}})
    return calls


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


def choose_model(configured: str | None, from_env: str | None) -> str | None:
    """The model a run uses: the configured `model_name` (a solver configuration's), else the
    worker's ARKEVO_LLM_MODEL."""
    return configured or from_env


def request_extras(opts: LlmAgentOptions) -> dict[str, Any]:
    """What every model request carries beyond the chat: the reasoning effort, when set."""
    return {"reasoning_effort": opts.reasoning_effort} if opts.reasoning_effort else {}


class LlmAgent(SandboxedMcpAgent):
    capabilities = AgentCapabilities(atif=True, reasoning_effort=True)
    options_model = LlmAgentOptions
    TRAJECTORY_FILE = "trajectory.json"

    @staticmethod
    def name() -> str:
        return "arkevo-llm-mcp"

    def version(self) -> str:
        return "1.0.0"

    @property
    def opts(self) -> LlmAgentOptions:
        return cast(LlmAgentOptions, self.options)  # parsed by BaseAgent from kwargs

    @classmethod
    def preflight(cls, kwargs=None, env=None) -> None:
        super().preflight(kwargs, env)
        source = {**os.environ, **(env or {})}
        if not source.get(BASE_URL_ENV):
            raise ValueError(f"{cls.name()}: {BASE_URL_ENV} is not set")

    def _endpoint(self) -> tuple[str, str, str | None]:
        base_url = self._get_env(BASE_URL_ENV)
        model = choose_model(self.model_name, self._get_env(MODEL_ENV))
        if not base_url or not model:
            raise ModelEndpointError(f"set {BASE_URL_ENV} and {MODEL_ENV} (or model_name) on the worker")
        return base_url, model, self._get_env(API_KEY_ENV)

    async def setup(self, environment: BaseEnvironment) -> None:
        require_spawning(environment)
        self._endpoint()

    async def run(self, instruction: str, environment: BaseEnvironment, context: AgentContext) -> None:
        base_url, model, api_key = self._endpoint()
        redactor = Redactor.from_environ(os.environ, self._extra_env)
        client = ChatClient(base_url, model, api_key, redactor=redactor, extra_body=request_extras(self.opts),
                            timeouts=Timeouts(self.opts.request_timeout_sec, self.opts.connect_timeout_sec))
        retry = SessionRetry(self.opts.max_attempts, self.opts.backoff_initial_sec, self.opts.backoff_max_sec)
        run = _Run(self, instruction, model, client, retry, redactor, context)
        try:
            async with BlenderMcpSession(environment, self.opts.mcp, log_dir=self.logs_dir) as session:
                await run.loop(session)
                if run.failure is None:
                    try:
                        await run.deliver(session)
                    except BlenderHostFailure as exc:
                        if not run.tool_calls:  # the model never acted: not its doing
                            raise
                        run.host_failed(exc)
        except BaseException as exc:  # cancellation (agent timeout) included: recorded, re-raised
            run.failed(exc)
            raise
        finally:
            await client.aclose()
            run.finish()


class _Run:
    """State of one LlmAgent run: the chat history, the ATIF steps, the context it fills."""

    def __init__(self, agent: LlmAgent, instruction: str, model: str, client: ChatClient,
                 retry: SessionRetry, redactor: Redactor, context: AgentContext) -> None:
        self.agent, self.opts, self.model = agent, agent.opts, model
        self.instruction, self.client, self.redactor, self.context = instruction, client, redactor, context
        self.retry = retry
        self.messages: list[dict[str, Any]] = []
        self.steps: list[Step] = []
        self.tool_defs: list[dict[str, Any]] = []
        self.stop_reason: str | None = None
        self.error: str | None = None
        self.delivery: str | None = None
        self.failure: dict[str, Any] | None = None  # a solver failure (docs/failures.md)
        self.model_calls = self.tool_calls = self.bad_tool_calls = 0
        self.prompt_tokens = self.completion_tokens = 0
        self.started = time.monotonic()

    def _step(self, **fields: Any) -> Step:
        step = Step(step_id=len(self.steps) + 1, timestamp=_now(), **fields)
        self.steps.append(step)
        return step

    async def loop(self, session: BlenderMcpSession) -> None:
        tools = [t for t in await session.list_tools() if t.name not in self.opts.exclude_tools]
        self.tool_defs = openai_tools(tools)
        names = {t.name for t in tools}
        system = SYSTEM_PROMPT.format(blend=self.opts.mcp.blend, workdir=self.opts.mcp.workdir,
                                      delivery=self.opts.delivery_path)
        self.messages = [{"role": "system", "content": system},
                         {"role": "user", "content": self.instruction}]
        self._step(source="system", message=system)
        self._step(source="user", message=self.instruction)

        for _ in range(self.opts.max_steps):
            reply = await self.retry.call(
                lambda: self.client.complete(self.messages, self.tool_defs, temperature=self.opts.temperature,
                                             max_tokens=self.opts.max_tokens),
                label=f"call {self.model_calls + 1}")
            self.model_calls += 1
            message, usage = self._read_reply(reply)
            calls = self._normalise_calls(message.get("tool_calls") or [])
            # Redacted too: the history is sent back to the endpoint on every call.
            self.messages.append(self.redactor.value({"role": "assistant", "content": message.get("content"),
                                                      **({"tool_calls": calls} if calls else {})}))
            atif_calls, results = [], []
            for call in calls:
                arguments, output, extra = await self._execute(session, call, names)
                atif_calls.append(ToolCall(tool_call_id=call["id"], function_name=call["function"]["name"],
                                           arguments=arguments, extra=extra))
                results.append(ObservationResult(source_call_id=call["id"], content=output))
                self.messages.append({"role": "tool", "tool_call_id": call["id"], "content": output})
                if self.failure:
                    break  # Blender is gone: the turn's remaining calls cannot run
            self._step(source="agent", model_name=self.model, message=message.get("content") or "",
                       reasoning_content=message.get("reasoning_content") or None,
                       tool_calls=atif_calls or None,
                       observation=Observation(results=results) if results else None,
                       metrics=Metrics(prompt_tokens=usage.get("prompt_tokens"),
                                       completion_tokens=usage.get("completion_tokens")),
                       llm_call_count=1)
            self._update_context()
            if self.failure:
                return
            if not calls:
                self.stop_reason = "final_answer"
                return
        self.stop_reason = "step_budget_exhausted"

    def _read_reply(self, reply: ChatReply) -> tuple[dict[str, Any], dict[str, Any]]:
        message, usage = reply.message, reply.usage
        self.prompt_tokens += usage.get("prompt_tokens") or 0
        self.completion_tokens += usage.get("completion_tokens") or 0
        return message, usage

    def _normalise_calls(self, raw_calls: list[Any]) -> list[dict[str, Any]]:
        return normalise_calls(raw_calls, self.model_calls)

    async def _execute(self, session: BlenderMcpSession, call: dict[str, Any],
                       names: set[str]) -> tuple[dict[str, Any], str, dict[str, Any] | None]:
        """Run one tool call; returns (arguments for the record, output for the model, extra)."""
        name, raw = call["function"]["name"], call["function"]["arguments"]
        arguments, error = parse_arguments(raw)
        if error is None and name not in names:
            error = f"unknown tool {name!r}; the tools are: {', '.join(sorted(names))}"
        if error is not None:
            self.bad_tool_calls += 1
            record = arguments if arguments is not None else {"raw_arguments": raw}
            return self.redactor.value(record), f"Error: {error}", {"error": "malformed_tool_call"}
        # Redacted before it enters the sandbox: a secret never crosses, even if a model emits one.
        arguments = self.redactor.value(arguments)
        self.tool_calls += 1
        try:
            result = await session.call_tool(name, arguments)
            output = tool_result_text(result)
            if result.isError:
                output = f"Error: {output}"
        except McpError as exc:
            output = f"Error: tool call failed: {exc}"
        except BlenderHostFailure as exc:  # after the model's own call: the model's doing
            self.host_failed(exc)
            output = f"Error: {exc}"
        output = self.redactor.text(output)
        limit = self.opts.max_tool_output_chars
        if len(output) > limit:
            output = output[:limit] + f"\n[... {len(output) - limit} more characters truncated]"
        return arguments, output, None

    async def deliver(self, session: BlenderMcpSession) -> None:
        call_id = "deliver"
        self.delivery = await session.save(self.opts.delivery_path)
        self._step(source="agent", message="save the open scene as the delivery", llm_call_count=0,
                   tool_calls=[ToolCall(tool_call_id=call_id, function_name="execute_blender_code",
                                        arguments={"code": save_code(self.opts.delivery_path)})],
                   observation=Observation(results=[ObservationResult(
                       source_call_id=call_id, content=f"saved {self.delivery}")]))

    def _update_context(self) -> None:
        ctx = self.context
        ctx.n_input_tokens, ctx.n_output_tokens = self.prompt_tokens, self.completion_tokens
        ctx.metadata = self.redactor.value({
            "model": self.model, "endpoint": self.client.url, "stop_reason": self.stop_reason,
            "steps": self.model_calls, "max_steps": self.opts.max_steps, "tool_calls": self.tool_calls,
            "malformed_tool_calls": self.bad_tool_calls, "endpoint_retries": len(self.retry.retries),
            "delivery": self.delivery, "error": self.error, "failure": self.failure,
            "seconds": round(time.monotonic() - self.started, 1),
        })

    def host_failed(self, exc: BlenderHostFailure) -> None:
        self.stop_reason = "blender_host_failed"
        self.failure = self.redactor.value(failure_record("solver", exc))

    def failed(self, exc: BaseException) -> None:
        self.stop_reason = "cancelled" if isinstance(exc, asyncio.CancelledError) else "error"
        self.error = self.redactor.text(f"{type(exc).__name__}: {exc}")

    def finish(self) -> None:
        """Fill the context and write the redacted trajectory; runs on failure too."""
        self._update_context()
        if not self.steps:
            return
        trajectory = Trajectory(
            session_id=self.agent.session_id, agent=AtifAgent(
                name=self.agent.name(), version=self.agent.version(), model_name=self.model,
                tool_definitions=self.tool_defs or None),
            steps=self.steps,
            final_metrics=FinalMetrics(total_prompt_tokens=self.prompt_tokens,
                                       total_completion_tokens=self.completion_tokens,
                                       total_steps=len(self.steps)),
            extra={"stop_reason": self.stop_reason, "error": self.error, "failure": self.failure,
                   "endpoint_retries": self.retry.retries, "delivery": self.delivery},
        )
        data = self.redactor.value(trajectory.to_json_dict())
        path = Path(self.agent.logs_dir) / LlmAgent.TRAJECTORY_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(format_trajectory_json(data), encoding="utf-8")
