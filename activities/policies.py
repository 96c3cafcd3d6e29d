"""Solver policies: who produces a delivery in a trial, and how each is labelled in records.

Scripted policies (oracle, nop, calibration scripts) are never presented as model results;
`llm` is a model agent whose endpoint comes from the worker's environment. A solver
configuration of the registry (`contracts/solver_configs.json`, docs/campaigns.md) becomes a
policy through `policy_from_solver`; a trial request picks its policy with `policy_for`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from contracts.payloads.trials import SolverSpec, TrialRequest

SCRIPTED_LABEL = "scripted policy — not a model result"
SCRIPTED_AGENT = "sandbox.agents.scripted:ScriptedMcpAgent"
LLM_AGENT = "sandbox.agents.llm:LlmAgent"
# This project's MCP agents: the backend's per-worker agent options (e.g. {"mcp": {...}}) are
# theirs; Harbor's own agents and foreign import paths get only the configuration's kwargs.
OWN_AGENTS = "sandbox.agents."


@dataclass(frozen=True)
class Policy:
    name: str
    kind: str  # scripted | model
    label: str
    script: str | None = None  # bpy script inside the task package, applied through MCP
    harbor_name: str | None = None  # an agent Harbor knows by name (AgentName)
    import_path: str | None = None  # a Harbor agent by import path; None: the scripted MCP agent
    model: str | None = None  # Harbor's model_name; None: the agent's own default
    reasoning_effort: str | None = None
    timeout_sec: float | None = None  # agent timeout; None: the task's [agent].timeout_sec
    kwargs: dict = field(default_factory=dict, hash=False)  # the agent's options

    @property
    def own_agent(self) -> bool:
        """Acted out by this project's scripted MCP agent or its MCP LLM agent."""
        return self.harbor_name is None and (self.import_path is None
                                             or self.import_path.startswith(OWN_AGENTS))

    def agent_config(self, script_path: str | None, extra_kwargs: dict | None = None) -> dict:
        """Keyword arguments of Harbor's `harbor.models.trial.config.AgentConfig` acting out
        this policy. `script_path`: the policy's script on the worker (oracle / script:);
        `extra_kwargs`: the worker's options for this project's MCP agents (ignored for
        Harbor's own agents and foreign import paths, whose options they are not)."""
        extra = dict(extra_kwargs or {}) if self.own_agent else {}
        if self.harbor_name is not None:
            agent: dict = {"name": self.harbor_name}
            kwargs = dict(self.kwargs)
        elif self.kind == "model" or self.import_path is not None:
            agent = {"import_path": self.import_path or LLM_AGENT}
            kwargs = dict(self.kwargs)
        elif self.script is None:
            agent = {"import_path": SCRIPTED_AGENT}
            kwargs = {**self.kwargs, "policy": "nop"}
        else:
            agent = {"import_path": SCRIPTED_AGENT}
            kwargs = {**self.kwargs, "policy": "script", "script_path": script_path}
        return {**agent, "model_name": self.model, "kwargs": {**kwargs, **extra},
                "override_timeout_sec": self.timeout_sec}


def policy_from_name(name: str) -> Policy:
    """`oracle`, `nop`, `llm`, or `script:<path in package>` (calibration defects/variants)."""
    if name == "oracle":
        return Policy("oracle", "scripted", SCRIPTED_LABEL, "solution/solve.py")
    if name == "nop":
        return Policy("nop", "scripted", SCRIPTED_LABEL)
    if name.startswith("script:"):
        return Policy(name, "scripted", SCRIPTED_LABEL, name.removeprefix("script:"))
    if name == "llm":
        model = os.environ.get("ARKEVO_LLM_MODEL", "unconfigured")
        return Policy("llm", "model", f"model agent: {model} via OpenAI-compatible endpoint",
                      import_path=LLM_AGENT)
    raise ValueError(f"unknown solver policy {name!r} (expected oracle, nop, llm or script:<path>)")


def policy_from_solver(spec: SolverSpec) -> Policy:
    """The policy acting out one registry configuration (`SolverConfig.spec()`).

    * `oracle` / `nop`: this project's scripted MCP policies, named by the config id;
    * `arkevo-llm`: this project's MCP LLM agent with the config's model (None: the worker's
      ARKEVO_LLM_MODEL), reasoning effort and agent kwargs;
    * `harbor:<name>`: an agent Harbor knows by name; `<module>:<Class>`: any Harbor agent by
      import path -- both with the config's model and kwargs, plus `reasoning_effort` when set.
    """
    common: dict[str, Any] = dict(label=spec.label, timeout_sec=spec.timeout_sec)
    kwargs = dict(spec.agent_kwargs)
    if spec.agent in ("oracle", "nop"):
        base = policy_from_name(spec.agent)
        return Policy(spec.config_id, "scripted", script=base.script, kwargs=kwargs, **common)
    if spec.reasoning_effort is not None:
        kwargs["reasoning_effort"] = spec.reasoning_effort
    model: dict[str, Any] = dict(model=spec.model, reasoning_effort=spec.reasoning_effort, kwargs=kwargs, **common)
    if spec.agent == "arkevo-llm":
        return Policy(spec.config_id, "model", import_path=LLM_AGENT, **model)
    if spec.agent.startswith("harbor:"):
        from harbor.models.agent.name import AgentName

        name = spec.agent.removeprefix("harbor:")
        if name not in AgentName.values():
            raise ValueError(f"solver config {spec.config_id!r}: Harbor knows no agent {name!r}")
        return Policy(spec.config_id, spec.kind, harbor_name=name, **model)
    if ":" in spec.agent:
        return Policy(spec.config_id, spec.kind, import_path=spec.agent, **model)
    raise ValueError(f"solver config {spec.config_id!r}: unknown agent {spec.agent!r} (expected "
                     "oracle, nop, arkevo-llm, harbor:<name> or <module>:<Class>)")


def policy_for(req: TrialRequest) -> Policy:
    """A trial's policy: its registry configuration when it carries one, else its policy name."""
    return policy_from_solver(req.solver) if req.solver else policy_from_name(req.policy)
