"""Every agent form of the solver registry (contracts/solver_configs.json) becomes the Harbor
AgentConfig that acts it out; scripted configs are never labelled model results; the LLM agent
takes a configuration's model over the worker's ARKEVO_LLM_MODEL."""

from __future__ import annotations

import dataclasses
import json

import pytest
from harbor.models.trial.config import AgentConfig

from activities.policies import (LLM_AGENT, SCRIPTED_AGENT, policy_for, policy_from_name,
                                 policy_from_solver)
from contracts.payloads.authoring import TaskIdentity
from contracts.payloads.common import BlobRef
from contracts.payloads.trials import SolverSpec, TrialRequest
from contracts.solver_configs import SCRIPTED_LABEL, SolverConfig, load_solver_registry
from contracts.validation import ContractError
from sandbox.agents.llm import (API_KEY_ENV, BASE_URL_ENV, MODEL_ENV, LlmAgent, LlmAgentOptions,
                                ModelEndpointError, choose_model, request_extras)

MCP = {"mcp": {"tool_timeout_sec": 5}}  # a worker's options for its own MCP agents


def spec(agent: str, **fields) -> SolverSpec:
    return SolverConfig(id="cfg", description="a test config", agent=agent, **fields).spec()


def agent_config(policy, script: str | None = None, extra: dict | None = None) -> AgentConfig:
    return AgentConfig(**policy.agent_config(script, extra if extra is not None else MCP))


def test_registry_configs_all_validate_as_harbor_agent_configs():
    registry = load_solver_registry()
    for config in registry.configs:
        policy = policy_from_solver(config.spec())
        assert policy.name == config.id and policy.label == config.label
        agent_config(policy, "/worker/solution/solve.py")  # pydantic-validated


def test_oracle_config_applies_the_reference_solution_through_mcp(tmp_path):
    policy = policy_from_solver(load_solver_registry().config("oracle").spec())
    assert (policy.name, policy.kind, policy.script) == ("oracle", "scripted", "solution/solve.py")
    config = agent_config(policy, "/w/solution/solve.py")
    assert config.import_path == SCRIPTED_AGENT and config.name is None
    assert config.kwargs == {"policy": "script", "script_path": "/w/solution/solve.py", **MCP}
    assert config.model_name is None and config.override_timeout_sec is None
    # exactly what the plain `oracle` policy does
    assert policy.agent_config("/w/s.py", MCP) == policy_from_name("oracle").agent_config("/w/s.py", MCP)


def test_nop_config_saves_the_start_scene():
    policy = policy_from_solver(load_solver_registry().config("nop").spec())
    config = agent_config(policy)
    assert config.import_path == SCRIPTED_AGENT and config.kwargs == {"policy": "nop", **MCP}
    assert policy.agent_config(None, MCP) == policy_from_name("nop").agent_config(None, MCP)


def test_plain_policies_keep_their_agents():
    assert policy_from_name("llm").agent_config(None, {}) == {
        "import_path": LLM_AGENT, "model_name": None, "kwargs": {}, "override_timeout_sec": None}
    assert policy_from_name("script:private/calibration/defects/x.py").agent_config("/w/x.py", {}) == {
        "import_path": SCRIPTED_AGENT, "model_name": None,
        "kwargs": {"policy": "script", "script_path": "/w/x.py"}, "override_timeout_sec": None}


def test_arkevo_llm_config_carries_model_effort_and_timeout():
    policy = policy_from_solver(spec("arkevo-llm", model="gpt-x", reasoning_effort="high",
                                     timeout_sec=900, agent_kwargs={"max_steps": 12}))
    assert (policy.kind, policy.model, policy.reasoning_effort) == ("model", "gpt-x", "high")
    config = agent_config(policy)
    assert config.import_path == LLM_AGENT and config.name is None
    assert config.model_name == "gpt-x" and config.override_timeout_sec == 900
    assert config.kwargs == {"max_steps": 12, "reasoning_effort": "high", **MCP}
    assert policy.label == "model agent arkevo-llm: gpt-x, reasoning effort high"


def test_arkevo_llm_reasoning_effort_reaches_the_agents_options(tmp_path):
    policy = policy_from_solver(spec("arkevo-llm", model="gpt-x", reasoning_effort="low"))
    config = agent_config(policy)
    agent = LlmAgent(logs_dir=tmp_path, model_name=config.model_name, **config.kwargs)
    assert agent.opts.reasoning_effort == "low"
    assert request_extras(agent.opts) == {"reasoning_effort": "low"}
    assert request_extras(LlmAgentOptions()) == {}  # unset: the endpoint's default, nothing sent


def test_arkevo_llm_without_effort_sends_none():
    config = agent_config(policy_from_solver(spec("arkevo-llm")))
    assert "reasoning_effort" not in config.kwargs and config.model_name is None


def test_harbor_agent_by_name():
    policy = policy_from_solver(spec("harbor:nop"))
    assert (policy.kind, policy.harbor_name, policy.label) == ("scripted", "nop", SCRIPTED_LABEL)
    config = agent_config(policy)
    assert config.name == "nop" and config.import_path is None
    assert config.kwargs == {}  # the worker's MCP options are not Harbor's agents' options

    model = policy_from_solver(spec("harbor:terminus-2", model="anthropic/claude-x",
                                    reasoning_effort="medium", agent_kwargs={"temperature": 0.2}))
    config = agent_config(model)
    assert (config.name, config.model_name) == ("terminus-2", "anthropic/claude-x")
    assert config.kwargs == {"temperature": 0.2, "reasoning_effort": "medium"}
    assert model.kind == "model" and "not a model result" not in model.label


def test_harbor_agent_unknown_to_harbor_is_refused():
    with pytest.raises(ValueError, match="Harbor knows no agent 'no-such-agent'"):
        policy_from_solver(spec("harbor:no-such-agent"))


def test_agent_by_import_path():
    policy = policy_from_solver(spec("my_agents.thing:ThingAgent", model="m1", timeout_sec=60,
                                     agent_kwargs={"depth": 3}))
    config = agent_config(policy)
    assert config.import_path == "my_agents.thing:ThingAgent" and config.name is None
    assert (config.model_name, config.override_timeout_sec) == ("m1", 60)
    assert config.kwargs == {"depth": 3}  # no reasoning effort unless set, no worker MCP options


def test_scripted_labels_say_not_a_model_result():
    for agent in ("oracle", "nop", "harbor:oracle", "harbor:nop"):
        policy = policy_from_solver(spec(agent))
        assert policy.kind == "scripted" and "not a model result" in policy.label, agent
    for name in ("oracle", "nop", "script:x.py"):
        assert "not a model result" in policy_from_name(name).label


def test_policy_for_prefers_the_solver_config():
    identity = TaskIdentity("t", "draft", "vv2-x", "d", "w", "p")
    req = TrialRequest(BlobRef("k", "0" * 64, 1), identity, "nop", "t-1", "campaign")
    assert policy_for(req) == policy_from_name("nop")
    with_solver = dataclasses.replace(req, policy="oracle",
                                      solver=load_solver_registry().config("oracle").spec())
    assert policy_for(with_solver).script == "solution/solve.py"
    assert policy_for(dataclasses.replace(req, solver=spec("arkevo-llm"))).kind == "model"


def test_llm_model_precedence(tmp_path, monkeypatch):
    assert choose_model("configured", "from-env") == "configured"
    assert choose_model(None, "from-env") == "from-env"
    monkeypatch.setenv(BASE_URL_ENV, "http://127.0.0.1:9/v1")
    monkeypatch.setenv(MODEL_ENV, "env-model")
    monkeypatch.setenv(API_KEY_ENV, "sk-test")
    configured = LlmAgent(logs_dir=tmp_path, model_name="config-model")
    assert configured._endpoint() == ("http://127.0.0.1:9/v1", "config-model", "sk-test")
    assert LlmAgent(logs_dir=tmp_path)._endpoint()[1] == "env-model"
    monkeypatch.delenv(MODEL_ENV)
    assert LlmAgent(logs_dir=tmp_path, model_name="config-model")._endpoint()[1] == "config-model"
    with pytest.raises(ModelEndpointError):
        LlmAgent(logs_dir=tmp_path)._endpoint()


def test_a_model_config_without_an_endpoint_fails_before_any_trial_naming_the_variables():
    from temporalio.exceptions import ApplicationError

    from activities.trials import solver_endpoint

    config = spec("arkevo-llm")
    with pytest.raises(ApplicationError) as e:
        solver_endpoint(config, {})
    assert e.value.type == "ModelNotConfigured" and e.value.non_retryable
    assert "ARKEVO_LLM_BASE_URL and ARKEVO_LLM_MODEL" in e.value.message
    found = solver_endpoint(spec("arkevo-llm", model="m1"),
                            {"ARKEVO_LLM_BASE_URL": "https://user:secret@host:8443/v1?key=sk-x",
                             "ARKEVO_LLM_API_KEY": "sk-x"})
    assert found == {"config_id": "cfg", "model": "m1", "endpoint": "https://host:8443/v1"}


def test_the_full_mode_runs_every_model_config_three_times(tmp_path):
    """The formal figures are avg@3 / pass@3: `full` gives every model config 3 attempts, and a
    registry whose `full` leaves one out, or runs it fewer times, does not load."""
    registry = load_solver_registry()
    models = [c.id for c in registry.configs if c.kind == "model"]
    assert models and all(dict((c.id, n) for c, n in registry.resolve("full"))[m] == 3 for m in models)
    doc = registry.model_dump(mode="json")
    doc["configs"].append({**doc["configs"][-1], "id": "llm-second", "model": "other-model"})
    for attempts, named in (({**doc["modes"]["full"]["attempts"], "llm-second": 1}, "llm-second runs 1"),
                            (doc["modes"]["full"]["attempts"], "llm-second runs 0")):
        path = tmp_path / "solver_configs.json"
        path.write_text(json.dumps({**doc, "modes": {**doc["modes"], "full": {
            "description": "formal", "attempts": attempts}}}))
        with pytest.raises(ContractError, match=f"mode 'full' runs every model config 3 times: {named}"):
            load_solver_registry(path)
