"""One author round: a Chat Completions tool loop that writes a seed's draft.

    session = AuthorSession(client, DraftFolder(seed_dir), mcp, seed_id="table-model",
                            round_no=1, feedback=[], max_steps=60)
    result = await session.run()   # AuthorRound: outcome, summary, missing, transcript

Modelled on the LLM solver agent (sandbox/agents/llm.py) and reusing its helpers. The model is
offered the Blender MCP tools of the authoring sandbox (minus those that cannot work there) and
the file tools of `DraftFolder`, `read_catalogue`, and two tools that end the round: `submit`
(outcome "submitted") and `needs_input` (the materials cannot support a task). A step is one
model call; when `max_steps` are spent the outcome is "no_submission".

Secrets: every tool argument is redacted before it reaches the sandbox or the disk, every tool
output before the model sees it, and the transcript as a whole. A malformed tool call is
answered with an error tool result. A Blender host that dies after the model's own call is the
model's doing: the call is answered with the error and the round ends as "no_submission".
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from mcp.shared.exceptions import McpError

from drafting.author_prompt import SECTIONS, SYSTEM_PROMPT, catalogue, user_message
from drafting.draft_folder import DraftFolder
from drafting.model_client import ModelClient
from sandbox.agents.llm import UNUSABLE_TOOLS, normalise_calls, openai_tools, parse_arguments
from sandbox.mcp_session import (BlenderHostFailure, BlenderMcpSession, failure_record,
                                 tool_result_text)

MAX_TOOL_OUTPUT_CHARS = 20_000
NUDGE = ("Keep working with the tools. The round ends only when you call submit (the draft is "
         "complete) or needs_input (the materials cannot support a task).")


def _function(name: str, description: str, properties: dict, required: list[str]) -> dict:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "properties": properties, "required": required,
        "additionalProperties": False}}}


_PATH = {"type": "string", "description": "seed-relative path, e.g. draft/task.json"}
FILE_TOOLS = [
    _function("list_files", "List seed.json, materials/... and draft/... with sizes.", {}, []),
    _function("read_file", "Read a UTF-8 file (seed.json, materials/..., draft/...).",
              {"path": _PATH}, ["path"]),
    _function("write_file", "Create or replace a draft file (only under draft/) with the "
              "whole text.", {"path": _PATH, "content": {"type": "string"}}, ["path", "content"]),
    _function("delete_file", "Delete a draft file (only under draft/).", {"path": _PATH}, ["path"]),
    _function("read_catalogue", "Reference: taxonomy ids, probe methods and params, the gaming operators, "
              "scoring profiles, or a worked example draft.",
              {"section": {"type": "string", "enum": list(SECTIONS)}}, ["section"]),
    _function("submit", "End the round: the draft in draft/ is complete.",
              {"summary": {"type": "string"}}, ["summary"]),
    _function("needs_input", "End the round without a draft: the materials cannot support a "
              "gradable task. Name each missing piece of information.",
              {"missing": {"type": "array", "items": {"type": "string"}, "minItems": 1},
               "summary": {"type": "string"}}, ["missing", "summary"]),
]
ENDING = {"submit": "submitted", "needs_input": "needs_input"}


@dataclass
class AuthorRound:
    outcome: str  # submitted | needs_input | no_submission
    summary: str = ""
    missing: list[str] = field(default_factory=list)
    transcript: dict[str, Any] = field(default_factory=dict)  # redacted


class AuthorSession:
    """The loop of one round. `mcp` None offers the file tools only (no Blender)."""

    def __init__(self, client: ModelClient, folder: DraftFolder, mcp: BlenderMcpSession | None, *,
                 seed_id: str, round_no: int, feedback: list[dict], max_steps: int,
                 max_tool_output_chars: int = MAX_TOOL_OUTPUT_CHARS) -> None:
        self.client, self.folder, self.mcp = client, folder, mcp
        self.redactor = client.redactor
        self.seed_id, self.round_no, self.feedback = seed_id, round_no, feedback
        self.max_steps, self.max_output = max_steps, max_tool_output_chars
        self.messages: list[dict[str, Any]] = []
        self.calls: list[dict[str, Any]] = []  # every tool call: arguments, output, error
        self.result = AuthorRound("no_submission")
        self.stop_reason = "step_budget_exhausted"
        self.host_failure: dict | None = None
        self.steps = 0
        self.mcp_names: set[str] = set()
        self.names: set[str] = set()

    async def run(self) -> AuthorRound:
        mcp_tools = [t for t in await self.mcp.list_tools() if t.name not in UNUSABLE_TOOLS] \
            if self.mcp else []
        tool_defs = openai_tools(mcp_tools) + FILE_TOOLS
        self.mcp_names = {t.name for t in mcp_tools}
        self.names = self.mcp_names | {t["function"]["name"] for t in FILE_TOOLS}
        seed_json = self.folder.read("seed.json")
        materials = {p: n for p, n in self.folder.entries().items() if p.startswith("materials/")}
        first = user_message(self.seed_id, seed_json, materials, self.round_no, self.feedback,
                             self.folder.draft_files())
        self.messages = self.redactor.value([{"role": "system", "content": SYSTEM_PROMPT},
                                             {"role": "user", "content": first}])
        try:
            while self.steps < self.max_steps and not self._ended():
                await self._step(tool_defs)
        finally:
            self.result.transcript = self._transcript(tool_defs)
        return self.result

    def _ended(self) -> bool:
        return self.result.outcome != "no_submission" or self.host_failure is not None

    async def _step(self, tool_defs: list[dict]) -> None:
        self.steps += 1
        message = await self.client.complete(self.messages, tool_defs)
        calls = normalise_calls(message.get("tool_calls") or [], self.steps)
        # Redacted: the history goes back to the endpoint on every call.
        self.messages.append(self.redactor.value({"role": "assistant", "content": message.get("content"),
                                                  **({"tool_calls": calls} if calls else {})}))
        if not calls:
            self.messages.append({"role": "user", "content": NUDGE})
            return
        for call in calls:
            if self._ended():  # a call after submit (or a dead host) is not run
                output = "Error: the round has already ended; this call was not run"
            else:
                output = await self._execute(call)
            self.messages.append({"role": "tool", "tool_call_id": call["id"], "content": output})

    async def _execute(self, call: dict[str, Any]) -> str:
        name, raw = call["function"]["name"], call["function"]["arguments"]
        arguments, error = parse_arguments(raw)
        if error is None and name not in self.names:
            error = f"unknown tool {name!r}; the tools are: {', '.join(sorted(self.names))}"
        record: dict[str, Any] = {"step": self.steps, "id": call["id"], "name": name}
        if error is not None:
            output = f"Error: {error}"
            record |= {"arguments": arguments if arguments is not None else {"raw_arguments": raw},
                       "malformed": True}
        else:
            # Redacted before it enters the sandbox or the draft: a secret never crosses.
            arguments = self.redactor.value(arguments)
            record["arguments"] = arguments
            output = await self._dispatch(name, arguments)
        output = self.redactor.text(output)
        # Blender output is bounded here; files are bounded by DraftFolder (256 KiB), whole.
        if name in self.mcp_names and len(output) > self.max_output:
            output = output[:self.max_output] + f"\n[... {len(output) - self.max_output} more characters truncated]"
        self.calls.append(self.redactor.value({**record, "output": output,
                                               "error": output.startswith("Error:")}))
        return output

    async def _dispatch(self, name: str, args: dict[str, Any]) -> str:
        folder = self.folder
        if name == "list_files":
            return folder.list_files()
        if name == "read_file":
            return folder.read(args.get("path"))
        if name == "write_file":
            return folder.write(args.get("path"), args.get("content"))
        if name == "delete_file":
            return folder.delete(args.get("path"))
        if name == "read_catalogue":
            return catalogue(str(args.get("section")))
        if name == "submit":
            if not folder.draft_files():
                return "Error: draft/ is empty; write the draft files before you submit"
            self.result = AuthorRound("submitted", str(args.get("summary") or ""))
            return "submitted"
        if name == "needs_input":
            missing = args.get("missing")
            if not (isinstance(missing, list) and missing and all(isinstance(m, str) for m in missing)):
                return "Error: missing must be a non-empty list of strings"
            self.result = AuthorRound("needs_input", str(args.get("summary") or ""), list(missing))
            return "recorded: needs input"
        return await self._blender(name, args)

    async def _blender(self, name: str, args: dict[str, Any]) -> str:
        assert self.mcp is not None  # only Blender tools reach here, and they are listed only with a session
        try:
            result = await self.mcp.call_tool(name, args)
        except McpError as exc:
            return f"Error: tool call failed: {exc}"
        except BlenderHostFailure as exc:  # after the model's own call: the model's doing
            self.host_failure = failure_record("author", exc)
            self.stop_reason = "blender_host_failed"
            return f"Error: {exc}"
        output = tool_result_text(result)
        return f"Error: {output}" if result.isError else output

    def _transcript(self, tool_defs: list[dict]) -> dict[str, Any]:
        if self.result.outcome != "no_submission":
            self.stop_reason = self.result.outcome
        return self.redactor.value({
            "role": "author", "seed_id": self.seed_id, "round": self.round_no,
            "endpoint": self.client.endpoint.describe(), "max_steps": self.max_steps,
            "steps": self.steps, "outcome": self.result.outcome, "stop_reason": self.stop_reason,
            "summary": self.result.summary, "missing": self.result.missing,
            "host_failure": self.host_failure, "tools": [t["function"]["name"] for t in tool_defs],
            "tool_calls": self.calls, "messages": self.messages, "usage": asdict(self.client.usage),
            "retries": self.client.retries, "draft_files": self.folder.draft_files(),
        })
