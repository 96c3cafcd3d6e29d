"""Scripted solver policies that act on Blender only through MCP tool calls.

    agent: {"import_path": "sandbox.agents.scripted:ScriptedMcpAgent",
            "kwargs": {"policy": "oracle", "script_path": "<host path>/solution/solve.py"}}

* ``nop``: saves the untouched scene as the delivery;
* ``oracle``: the task's reference solution, ``script``: any other bpy script (a calibration
  defect or variant).  The script is read here, on the worker -- the solver sandbox never sees
  ``solution/`` or calibration files -- and sent through the ``execute_blender_code`` tool, run
  with the globals ``blender/apply_script.py`` gives it (``bpy``, ``__name__ ==
  "__main__"``, ``__file__``), then the scene is saved as the delivery.

Every record labels the run a scripted policy: these are not model results.  A script that
raises inside Blender, kills it or hangs it fails the run (``ScriptFailed``) and no delivery is
written, as with apply_script: the draft author's failure (kind ``author`` in
``context.metadata["failure"]``, with the exception line and the script's line number), never
retried.  A host that fails before the script ran (start, handshake, nop's save) is raised as
it is: infrastructure (docs/failures.md).
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from pathlib import Path
from typing import Any, Literal, cast

from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext

from pydantic import Field, model_validator

from sandbox.agents.base import McpAgentOptions, SandboxedMcpAgent
from observability.redaction import Redactor
from sandbox.mcp_session import (BlenderHostFailure, BlenderMcpSession, failure_record,
                                 require_spawning, tool_result_text)

SCRIPT_OK_MARKER = "ARKEVO_SCRIPT_OK"
POLICY_LABEL = "scripted policy (not a model result)"


class ScriptedMcpAgentOptions(McpAgentOptions):
    policy: Literal["nop", "oracle", "script"] = "nop"
    script_path: str | None = Field(None, description="bpy script on the worker (oracle/script)")

    @model_validator(mode="after")
    def _script_matches_policy(self) -> ScriptedMcpAgentOptions:
        if self.policy == "nop":
            if self.script_path is not None:
                raise ValueError("policy 'nop' takes no script_path")
        elif self.script_path is None:
            raise ValueError(f"policy {self.policy!r} needs script_path")
        elif not Path(self.script_path).is_file():
            raise ValueError(f"script_path not found: {self.script_path}")
        return self


class ScriptFailed(RuntimeError):
    """The scripted policy's bpy script raised inside Blender, or killed or hung it."""


def script_exception(output: str, filename: str) -> tuple[str, int | None]:
    """The exception line (``KeyError: ...``) and the script's deepest line number, from an
    execute_blender_code error (the add-on sends a JSON payload with the traceback)."""
    exception, trace = "", output
    start = output.find("{")
    try:
        detail = json.loads(output[start:]) if start >= 0 else {}
        exception = f"{detail['exception_type']}: {detail['message']}"
        trace = detail.get("traceback", "")
    except (ValueError, KeyError, TypeError):
        lines = [line.strip() for line in output.splitlines() if line.strip()]
        exception = lines[-1] if lines else "no output"
    lines = re.findall(rf'File "{re.escape(filename)}", line (\d+)', trace)
    return exception, int(lines[-1]) if lines else None


def script_call_code(source: str, filename: str) -> str:
    """Code for execute_blender_code that runs ``source`` as apply_script would: own globals,
    ``__name__ == "__main__"``, tracebacks naming ``filename`` and its real line numbers."""
    return (
        "import bpy\n"
        f"exec(compile({source!r}, {filename!r}, 'exec'),"
        f" {{'bpy': bpy, '__name__': '__main__', '__file__': {filename!r}}})\n"
        f"print({SCRIPT_OK_MARKER!r})\n"
    )


class ScriptedMcpAgent(SandboxedMcpAgent):
    options_model = ScriptedMcpAgentOptions
    LOG_FILE = "scripted-mcp.txt"

    @staticmethod
    def name() -> str:
        return "arkevo-scripted-mcp"

    def version(self) -> str:
        return "1.0.0"

    @property
    def opts(self) -> ScriptedMcpAgentOptions:
        return cast(ScriptedMcpAgentOptions, self.options)  # parsed by BaseAgent from kwargs

    async def setup(self, environment: BaseEnvironment) -> None:
        require_spawning(environment)

    async def run(self, instruction: str, environment: BaseEnvironment, context: AgentContext) -> None:
        opts = self.opts
        script = Path(opts.script_path) if opts.script_path else None
        source = script.read_text(encoding="utf-8") if script else None
        metadata: dict[str, Any] = {
            "policy": opts.policy, "label": POLICY_LABEL, "scripted": True,
            "script": script.name if script else None,
            "script_sha256": hashlib.sha256(source.encode()).hexdigest() if source else None,
            "tool_calls": [], "delivery": None,
            # wall seconds of each step, for bench/trial_breakdown.py: the MCP session's start
            # (the Blender host with the scene, the MCP server, initialize), the script, the save,
            # the session's stop
            "seconds": {},
        }
        context.metadata = metadata
        began = time.monotonic()

        def lap(step: str) -> None:
            nonlocal began
            now = time.monotonic()
            metadata["seconds"][step] = round(now - began, 3)
            began = now

        log: list[str] = []
        redactor = Redactor.from_environ()
        self.logs_dir.mkdir(parents=True, exist_ok=True)
        try:
            async with BlenderMcpSession(environment, opts.mcp, log_dir=self.logs_dir) as session:
                lap("session start")
                if source is not None:
                    assert script is not None  # source was read from it
                    metadata["tool_calls"].append("execute_blender_code")
                    log.append(f"$ execute_blender_code <{script.name}>")
                    try:
                        result = await session.call_tool(
                            "execute_blender_code", {"code": script_call_code(source, script.name)})
                    except BlenderHostFailure as exc:  # the script killed or hung Blender
                        log.append(str(exc))
                        metadata["failure"] = redactor.value(failure_record("author", exc))
                        metadata["failure"]["evidence"]["script"] = script.name
                        raise ScriptFailed(f"{opts.policy} script {script.name}: {exc}") from None
                    text = tool_result_text(result)
                    log.append(text)
                    if result.isError or SCRIPT_OK_MARKER not in text:
                        exception, line = script_exception(text, script.name)
                        metadata["failure"] = redactor.value({
                            "kind": "author", "type": "ScriptRaised", "message": exception,
                            "evidence": {"script": script.name, "line": line, "output": text[-2000:]}})
                        raise ScriptFailed(f"{opts.policy} script {script.name} failed in Blender:\n"
                                           f"{redactor.text(text)}")
                    lap("script")
                metadata["tool_calls"].append("execute_blender_code")
                metadata["delivery"] = await session.save(opts.delivery_path)
                lap("save")
                log.append(f"$ save -> {metadata['delivery']}")
            lap("session stop")
        finally:
            (self.logs_dir / self.LOG_FILE).write_text(redactor.text("\n".join(log) + "\n"),
                                                       encoding="utf-8")
