"""A registry role's conversation on the project's one chat client (`modelapi.client`).

The endpoint comes from the models registry (`contracts/model_roles.py`) on this worker; every
request and reply recorded here is redacted by the worker's secret rule
(`observability.redaction`). Usage (calls, tokens, seconds) is counted into a `ModelUsage`
that travels into the authoring record.

Retries (`modelapi.retry`): the reviewer's and the deriver's calls are sent once and Temporal
retries their activity; the author's tool loop, a live Blender session, passes a `SessionRetry`.
The llm workers pass their shared request budget.
"""

from __future__ import annotations

import json
import os
from typing import Any

from contracts.model_roles import ModelEndpoint
from contracts.payloads.model_authoring import ModelUsage
from modelapi.client import ChatClient, ModelEndpointError, ModelEndpointUnavailable, Timeouts
from modelapi.rate_budget import Budget
from modelapi.retry import SessionRetry
from observability.redaction import Redactor

__all__ = ["ModelClient", "ModelEndpointError", "ModelEndpointUnavailable", "parse_json_reply"]


class ModelClient:
    def __init__(self, endpoint: ModelEndpoint, *, request_timeout_sec: float = 600.0,
                 retry: SessionRetry | None = None, budget: Budget | None = None,
                 redactor: Redactor | None = None) -> None:
        self.endpoint = endpoint
        self.redactor = redactor or Redactor.from_environ(os.environ)
        extra = {"reasoning_effort": endpoint.reasoning_effort} if endpoint.reasoning_effort else {}
        self._client = ChatClient(endpoint.base_url, endpoint.model, endpoint.api_key,
                                  timeouts=Timeouts(read=request_timeout_sec), extra_body=extra,
                                  redactor=self.redactor, budget=budget)
        self.retry = retry
        self.usage = ModelUsage(role=endpoint.role, model=endpoint.model)
        self.transcript: list[dict[str, Any]] = []  # redacted replies with their usage

    @property
    def retries(self) -> list[dict]:
        return self.retry.retries if self.retry else []

    async def complete(self, messages: list[dict], tools: list[dict] | None = None) -> dict:
        """The assistant message of one call (`content`, maybe `tool_calls`). Raises
        ModelEndpointError for replies no retry will fix, ModelEndpointUnavailable when the
        endpoint is busy (after the session's retries, where there is one)."""
        async def send():
            return await self._client.complete(messages, tools)
        try:
            reply = await (self.retry.call(send, label=f"call {self.usage.model_calls + 1}")
                           if self.retry else send())
        finally:
            self.usage.seconds = self._client.usage.seconds
        self.usage.model_calls += 1
        self.usage.prompt_tokens += int(reply.usage.get("prompt_tokens") or 0)
        self.usage.completion_tokens += int(reply.usage.get("completion_tokens") or 0)
        message = self.redactor.value(reply.message)
        self.transcript.append(self.redactor.value({"reply": message, "usage": reply.usage}))
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
