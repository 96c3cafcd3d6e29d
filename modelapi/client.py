"""`ChatClient`: POST ``/chat/completions`` on any OpenAI-compatible endpoint, one request per
call.

It never retries. A 429, a 5xx or a transport failure raises `ModelEndpointUnavailable` with the
server's ``Retry-After`` (seconds, capped) so that the call's one retry owner (`modelapi.retry`:
Temporal's activity retry, or a Blender session's own loop) decides what happens next. Any other
4xx, or a reply that is not a chat completion, raises `ModelEndpointError`: no retry fixes it.

Every request first takes a slot from the client's budget (`modelapi.rate_budget`: on llm
workers one budget shared by every worker process). Every error text is redacted with the
worker's secret rule, and each successful reply adds to `usage` (calls, tokens, seconds).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from modelapi.rate_budget import Budget, Unlimited
from modelapi.retry_after import parse_retry_after
from observability.redaction import Redactor

RETRY_AFTER_MAX_SEC = 300.0  # a server's Retry-After is honoured up to this


class ModelEndpointError(RuntimeError):
    """The endpoint refused the request (4xx other than 408/429) or sent a reply that is not a
    chat completion: configuration or the endpoint's fault, which no retry will fix. Never
    scored as a model's 0."""


class ModelEndpointUnavailable(ModelEndpointError):
    """429, 408, 5xx or a transport failure: worth retrying, after `retry_after` seconds when
    the server said so."""

    def __init__(self, message: str, retry_after: float | None = None, status: int | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.status = status


@dataclass
class Usage:
    """What one client spent: successful calls, tokens, seconds of waiting on the endpoint."""

    calls: int = 0
    requests: int = 0  # every request sent, the failed ones included
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0


@dataclass(frozen=True)
class ChatReply:
    message: dict[str, Any]  # the assistant message: content, maybe tool_calls
    usage: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def content(self) -> str:
        """The text of the reply (a list of content parts joined)."""
        content = self.message.get("content")
        if isinstance(content, list):  # some servers return content parts
            return "".join(p.get("text", "") for p in content if isinstance(p, dict))
        return content or ""


@dataclass(frozen=True)
class Timeouts:
    read: float = 300.0  # one reply, read/write
    connect: float = 10.0


class ChatClient:
    """One endpoint and model. Use as an async context manager, or call `aclose()`."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None, *,
                 timeouts: Timeouts = Timeouts(), extra_body: dict[str, Any] | None = None,
                 redactor: Redactor | None = None, budget: Budget | None = None,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.url = self.base_url + "/chat/completions"
        self.model = model
        self.extra_body = dict(extra_body or {})  # e.g. {"reasoning_effort": "high"}
        self.redactor = redactor or Redactor.from_environ()
        self.budget = budget or Unlimited()
        self.usage = Usage()
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.AsyncClient(headers=headers, transport=transport,
                                       timeout=httpx.Timeout(timeouts.read, connect=timeouts.connect))

    async def __aenter__(self) -> "ChatClient":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    def body(self, messages: list[dict], tools: list[dict] | None = None, **params: Any) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": messages, **self.extra_body}
        if tools:
            body |= {"tools": tools, "tool_choice": "auto"}
        return body | {k: v for k, v in params.items() if v is not None}

    async def complete(self, messages: list[dict], tools: list[dict] | None = None, **params: Any) -> ChatReply:
        """One request (`params`: temperature, max_tokens, ...; None values are left out)."""
        await self.budget.acquire()
        self.usage.requests += 1
        started = time.monotonic()
        try:
            response = await self._http.post(self.url, json=self.body(messages, tools, **params))
        except httpx.HTTPError as exc:  # timeouts and connection failures
            raise ModelEndpointUnavailable(self._say(f"{type(exc).__name__}: {exc}")) from None
        finally:
            self.usage.seconds = round(self.usage.seconds + time.monotonic() - started, 3)
        status = response.status_code
        if status in (408, 429) or status >= 500:
            wait = parse_retry_after(response.headers.get("retry-after"))
            raise ModelEndpointUnavailable(
                self._say(f"HTTP {status}: {response.text[:200]}"),
                None if wait is None else min(wait, RETRY_AFTER_MAX_SEC), status)
        if status >= 400:
            raise ModelEndpointError(self._say(f"HTTP {status}: {response.text[:500]}"))
        try:
            raw = response.json()
            message = raw["choices"][0]["message"]
            if not isinstance(message, dict):
                raise TypeError(type(message).__name__)
        except ValueError:
            raise ModelEndpointError(self._say(f"a reply that is not JSON: {response.text[:200]!r}")) from None
        except (KeyError, IndexError, TypeError):
            raise ModelEndpointError(self._say(
                f"a reply with no choices[0].message: {json.dumps(raw)[:300]}")) from None
        usage = raw.get("usage") if isinstance(raw.get("usage"), dict) else {}
        self.usage.calls += 1
        self.usage.prompt_tokens += int(usage.get("prompt_tokens") or 0)
        self.usage.completion_tokens += int(usage.get("completion_tokens") or 0)
        return ChatReply(message, usage, raw)

    def _say(self, what: str) -> str:
        return self.redactor.text(f"model endpoint {self.url} ({self.model}): {what}")
