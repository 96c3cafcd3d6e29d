"""A campaign preflight's model endpoint check (activities/preflight.py `ping`), through the
agent's own chat client against the local FAKE OpenAI-compatible endpoint (tests/fakes: not a
model) and a closed port: what is sent, and the named error of each way an endpoint fails."""

from __future__ import annotations

import json

from activities.preflight import PING_PROMPT, endpoint_groups, ping
from contracts.errors import MODEL_ENDPOINT_UNREACHABLE, MODEL_NOT_CONFIGURED
from contracts.payloads.trials import SolverSpec
from tests.conftest import free_port
from tests.fakes.openai_server import FakeOpenAIServer, Reply, error, final

KEY = "sk-fake-preflight-secret"


def llm(config_id: str, model: str | None = "fake-model", effort: str | None = None, **kwargs) -> SolverSpec:
    return SolverSpec(config_id, "arkevo-llm", "model", f"model agent arkevo-llm: {model}", model,
                      effort, agent_kwargs=kwargs)


def env(base_url: str) -> dict[str, str]:
    return {"ARKEVO_LLM_BASE_URL": base_url, "ARKEVO_LLM_API_KEY": KEY}


async def test_one_minimal_request_as_the_agent_sends_it():
    with FakeOpenAIServer([final("ok")]) as fake:
        check = await ping([llm("a", effort="high", max_tokens=64, temperature=0.5)], env(fake.base_url))
    assert check.ok and check.error is None and check.latency_sec is not None
    assert check.endpoint == fake.base_url and check.model == "fake-model" and check.reasoning_effort == "high"
    [sent] = fake.requests
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["Authorization"] == f"Bearer {KEY}"
    assert sent.json == {"model": "fake-model", "messages": [{"role": "user", "content": PING_PROMPT}],
                         "reasoning_effort": "high", "temperature": 0.5, "max_tokens": 64}


async def test_refused_unknown_model_and_not_json_are_named_and_never_show_the_key():
    port = free_port()  # nothing listens there
    dead = await ping([llm("a")], env(f"http://127.0.0.1:{port}/v1"))
    assert (dead.ok, dead.error_type) == (False, MODEL_ENDPOINT_UNREACHABLE)
    assert "ConnectError" in dead.error and f"127.0.0.1:{port}" in dead.error
    replies = [error(401, message="invalid api key"), error(404, message="model 'nope' does not exist"),
               Reply(body="<html>proxy login</html>")]
    with FakeOpenAIServer(replies) as fake:
        checks = [await ping([llm("a")], env(fake.base_url)) for _ in replies]
    assert [c.error_type for c in checks] == [MODEL_ENDPOINT_UNREACHABLE] * 3
    assert "HTTP 401" in checks[0].error and "HTTP 404" in checks[1].error
    assert "not JSON" in checks[2].error
    assert all(KEY not in json.dumps(c.__dict__) for c in [dead, *checks])


async def test_an_unconfigured_worker_is_model_not_configured_without_a_request():
    check = await ping([llm("a", model=None)], {"ARKEVO_LLM_BASE_URL": "http://127.0.0.1:9/v1"})
    assert (check.ok, check.error_type) == (False, MODEL_NOT_CONFIGURED)
    assert "ARKEVO_LLM_MODEL" in check.error


def test_configs_sharing_model_and_options_share_one_ping():
    scripted = SolverSpec("nop", "nop", "scripted", "scripted policy — not a model result")
    groups = endpoint_groups([llm("a"), llm("b"), llm("c", effort="low"), llm("d", model=None), scripted],
                             {"ARKEVO_LLM_MODEL": "fake-model"})
    assert [[s.config_id for s in g] for g in groups] == [["a", "b", "d"], ["c"]]
