"""Model conversations in activities (the reviewer, the deriver, the author): an endpoint that
is not configured or refuses the request is a non-retryable error; a busy one (429/5xx/
transport) is a retryable error carrying the server's Retry-After as Temporal's next retry delay
(`modelapi.retry`: the reviewer's and deriver's calls are sent once, the author's Blender
session retries its own calls first); a reply that cannot be read gets one corrective
follow-up."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from temporalio.exceptions import ApplicationError

from contracts.errors import MODEL_NOT_CONFIGURED, model_endpoint_error, model_not_configured
from storage.content import ContentStore
from contracts.model_roles import ModelEndpoint, ModelNotConfigured, resolve_endpoint
from contracts.payloads.common import BlobRef
from drafting.model_client import ModelClient, ModelEndpointError, ModelEndpointUnavailable
from modelapi.rate_budget import Budget
from modelapi.retry import SessionRetry, activity_error


class ReplyInvalid(ValueError):
    """A reply still unreadable after the corrective follow-up; `messages` is the whole talk."""

    def __init__(self, message: str, messages: list[dict]) -> None:
        super().__init__(message)
        self.messages = messages


def resolve(role: str) -> ModelEndpoint:
    """The role's endpoint on this worker; none configured (or a role the registry lacks) is a
    non-retryable error naming what to set."""
    try:
        return resolve_endpoint(role)
    except ModelNotConfigured as exc:
        raise model_not_configured(exc) from None
    except KeyError as exc:  # no retry will add a role to the registry
        raise ApplicationError(str(exc.args[0]), type=MODEL_NOT_CONFIGURED, non_retryable=True) from None


@asynccontextmanager
async def model_session(role: str, usage_role: str | None = None, *, budget: Budget | None = None,
                        retry: SessionRetry | None = None) -> AsyncIterator[ModelClient]:
    """A ModelClient for a registry role, with endpoint failures turned into activity errors."""
    client = ModelClient(resolve(role), budget=budget, retry=retry)
    client.usage.role = usage_role or role
    try:
        yield client
    except ModelEndpointUnavailable as exc:  # infrastructure: Temporal retries the activity
        raise activity_error(exc, f"{role} model endpoint") from None
    except ModelEndpointError as exc:
        raise model_endpoint_error(f"{role} model endpoint: {exc}") from None
    finally:
        await client.aclose()


async def ask_json(client: ModelClient, messages: list[dict],
                   parse: Callable[[str | None], Any]) -> tuple[Any, list[dict]]:
    """(parsed reply, the whole conversation). An unreadable reply gets one corrective
    follow-up in the same context; a second one raises ReplyInvalid."""
    messages = list(messages)
    for attempt in (1, 2):
        reply = await client.complete(messages)
        messages.append({"role": "assistant", "content": reply.get("content") or ""})
        try:
            return parse(reply.get("content")), messages
        except ValueError as exc:
            if attempt == 2:
                raise ReplyInvalid(str(exc), messages) from None
            messages.append({"role": "user", "content": (
                f"Your reply could not be read: {exc}. Reply again with only the JSON object "
                "in the format the system message gives.")})
    raise AssertionError("unreachable")


def store_transcript(store: ContentStore, client: ModelClient, messages: list[dict],
                     **extra: Any) -> BlobRef:
    """The conversation and the raw replies, redacted by the client's secret rule."""
    return store.put_json(client.redactor.value({
        "endpoint": client.endpoint.describe(), "usage": client.usage.__dict__,
        "messages": messages, "replies": client.transcript, "retries": client.retries, **extra}))
