"""The project's one chat-completions client (modelapi/client.py) and the in-place retry of a
Blender session (modelapi/retry.py), against the FAKE OpenAI-compatible server
(tests/fakes/openai_server.py; no model can be reached from here)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from modelapi.client import ChatClient, ModelEndpointError, ModelEndpointUnavailable
from modelapi.retry import SessionRetry, activity_error
from observability.redaction import Redactor
from tests.fakes.openai_server import FakeOpenAIServer, Reply, error, final
from workers.stack import free_port

HELLO = [{"role": "user", "content": "hello"}]


class CountingBudget:
    def __init__(self):
        self.slots = 0

    async def acquire(self) -> float:
        self.slots += 1
        return 0.0


class Sleeps:
    def __init__(self):
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.mark.parametrize("reply, retry_after", [
    (error(429, retry_after="7"), 7.0),
    (error(503), None),
    (error(408, retry_after="Wed, 21 Oct 2015 07:28:00 GMT"), 0.0),  # a date in the past: now
    (error(429, retry_after="86400"), 300.0),  # capped
])
async def test_a_busy_endpoint_is_one_request_and_says_how_long_to_wait(reply, retry_after):
    with FakeOpenAIServer([reply]) as fake:
        async with ChatClient(fake.base_url, "m", budget=(budget := CountingBudget())) as client:
            with pytest.raises(ModelEndpointUnavailable) as info:
                await client.complete(HELLO)
    assert len(fake.requests) == 1 == budget.slots == client.usage.requests
    assert info.value.retry_after == retry_after and info.value.status == reply.status


async def test_no_endpoint_listening_is_unavailable_too():
    async with ChatClient(f"http://127.0.0.1:{free_port()}/v1", "m") as client:
        with pytest.raises(ModelEndpointUnavailable, match="ConnectError") as info:
            await client.complete(HELLO)
    assert info.value.retry_after is None


async def test_a_refusal_or_a_reply_that_is_no_completion_is_an_error_no_retry_fixes():
    key = "sk-test-0123456789"
    script = [error(401, message=f"bad key {key}"), Reply(body={"id": "x"}), Reply(body="not json")]
    with FakeOpenAIServer(script) as fake:
        async with ChatClient(fake.base_url, "m", key, redactor=Redactor({"ARKEVO_VL_API_KEY": key})) as client:
            errors = []
            for expected in ("HTTP 401", "no choices", "not JSON"):
                with pytest.raises(ModelEndpointError, match=expected) as info:
                    await client.complete(HELLO)
                errors.append(info.value)
    assert not any(isinstance(e, ModelEndpointUnavailable) for e in errors)
    assert "bad key [REDACTED:ARKEVO_VL_API_KEY]" in str(errors[0]) and key not in str(errors[0])
    assert fake.requests[0].headers["Authorization"] == f"Bearer {key}"


async def test_one_place_for_the_body_usage_and_extras():
    with FakeOpenAIServer([final("hi"), final("again")]) as fake:
        async with ChatClient(fake.base_url, "m", extra_body={"reasoning_effort": "low"}) as client:
            reply = await client.complete(HELLO, temperature=0, max_tokens=None)
            await client.complete(HELLO, [{"type": "function", "function": {"name": "f"}}])
    assert reply.content == "hi"
    first, second = (r.json for r in fake.requests)
    assert first == {"model": "m", "messages": HELLO, "reasoning_effort": "low", "temperature": 0}
    assert second["tool_choice"] == "auto" and "temperature" not in second
    assert (client.usage.calls, client.usage.prompt_tokens, client.usage.completion_tokens) == (2, 200, 40)


async def test_a_session_retries_a_call_in_place_honouring_retry_after():
    sleeps = Sleeps()
    with FakeOpenAIServer([error(429, retry_after="2"), final("ok")]) as fake:
        async with ChatClient(fake.base_url, "m") as client:
            retry = SessionRetry(max_attempts=3, backoff_initial_sec=0.5, sleep=sleeps)
            reply = await retry.call(lambda: client.complete(HELLO), label="call 1")
    assert reply.content == "ok" and len(fake.requests) == 2
    assert sleeps.waits == [2.0] and retry.retries[0]["retry_after"] == 2.0


async def test_a_session_gives_up_with_the_last_retry_after_for_temporal():
    with FakeOpenAIServer([error(503)] * 2 + [error(429, retry_after="30")]) as fake:
        async with ChatClient(fake.base_url, "m") as client:
            retry = SessionRetry(max_attempts=3, backoff_initial_sec=0.01, sleep=Sleeps())
            with pytest.raises(ModelEndpointUnavailable, match="after 3 attempts") as info:
                await retry.call(lambda: client.complete(HELLO))
    assert len(fake.requests) == 3
    err = activity_error(info.value, "author model endpoint")
    assert err.type == "ModelEndpointUnavailable" and not err.non_retryable
    assert err.next_retry_delay == timedelta(seconds=30)
