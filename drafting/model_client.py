"""One chat-completions client per model role, on top of the LLM agent's client.

The endpoint comes from the models registry (`contracts/model_roles.py`) on this worker; every
request and reply recorded here is redacted by the worker's secret rule
(`sandbox.agents.redaction`). Usage (calls, tokens, seconds) is counted into a `ModelUsage`
that travels into the authoring record.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from contracts.model_roles import ModelEndpoint
from contracts.payloads import ModelUsage
from sandbox.agents.llm import (ChatCompletionsClient, LlmAgentOptions, ModelEndpointError,
                                ModelEndpointUnavailable, reply_message)
from sandbox.agents.redaction import Redactor

__all__ = ["ModelClient", "ModelEndpointError", "ModelEndpointUnavailable", "parse_json_reply"]


class ModelClient:
    def __init__(self, endpoint: ModelEndpoint, *, request_timeout_sec: float = 600.0,
                 max_attempts: int = 6, backoff_initial_sec: float = 1.0,
                 redactor: Redactor | None = None) -> None:
        self.endpoint = endpoint
        self.redactor = redactor or Redactor.from_environ(os.environ)
        opts = LlmAgentOptions(request_timeout_sec=request_timeout_sec, max_attempts=max_attempts,
                               backoff_initial_sec=backoff_initial_sec)
        extra = {"reasoning_effort": endpoint.reasoning_effort} if endpoint.reasoning_effort else {}
        self._client = ChatCompletionsClient(endpoint.base_url, endpoint.model, endpoint.api_key,
                                             opts, self.redactor, extra_body=extra)
        self.usage = ModelUsage(role=endpoint.role, model=endpoint.model)
        self.transcript: list[dict[str, Any]] = []  # redacted requests' new messages + replies

    @property
    def retries(self) -> list[dict]:
        return self._client.retries

    async def complete(self, messages: list[dict], tools: list[dict] | None = None) -> dict:
        """The assistant message of one call (`content`, maybe `tool_calls`). Raises
        ModelEndpointError for replies no retry will fix, ModelEndpointUnavailable after the
        client's retries (infrastructure)."""
        started = time.monotonic()
        try:
            reply = await self._client.complete(messages, tools or [])
        finally:
            self.usage.seconds = round(self.usage.seconds + time.monotonic() - started, 3)
        self.usage.model_calls += 1
        message, usage = reply_message(reply, self.redactor)
        self.usage.prompt_tokens += int(usage.get("prompt_tokens") or 0)
        self.usage.completion_tokens += int(usage.get("completion_tokens") or 0)
        self.transcript.append(self.redactor.value({"reply": message, "usage": usage}))
        return message

    async def aclose(self) -> None:
        await self._client.aclose()


def parse_json_reply(text: str | None) -> Any:
    """The JSON object in a model's text reply: the whole text, a ```json fence, or the
    outermost {...}. Raises ValueError naming what was wrong."""
    text = (text or "").strip()
    if not text:
        raise ValueError("the reply is empty")
    candidates = [text]
    if "```" in text:
        for block in text.split("```")[1::2]:
            candidates.append(block.removeprefix("json").strip())
    if "{" in text and "}" in text:
        candidates.append(text[text.index("{"):text.rindex("}") + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    raise ValueError(f"the reply is not JSON: {text[:200]!r}")
