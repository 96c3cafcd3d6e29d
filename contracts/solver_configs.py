"""The solver registry (`contracts/solver_configs.json`, docs/campaigns.md): who may solve tasks in
an evaluation campaign, with which model and limits, and the named modes that choose configs
and attempts.

`agent` names what acts in the trial:

* `oracle`, `nop`: this project's scripted MCP policies -- labelled "not a model result";
* `arkevo-llm`: this project's MCP LLM agent (sandbox/agents/llm.py);
* `harbor:<name>`: any agent Harbor knows by name (`harbor.models.agent.name.AgentName`);
* `<module>:<Class>`: any Harbor agent by import path.

Like `contracts/model_roles.json`, the registry names models, never keys: endpoints and keys are
the workers' environment.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from contracts.payloads.trials import SolverSpec
from contracts.validation import ContractError, model_error

REGISTRY_PATH = Path(__file__).resolve().parent / "solver_configs.json"
SCRIPTED_LABEL = "scripted policy — not a model result"
SCRIPTED_AGENTS = ("oracle", "nop")
# Harbor's own agents that act without a model (harbor.models.agent.name.AgentName).
HARBOR_SCRIPTED = ("oracle", "nop")
ID = r"^[a-z0-9][a-z0-9_-]{0,47}$"
FULL, FULL_ATTEMPTS = "full", 3  # the mode of the formal figures, and its k for model configs
AGENT = r"^(?:oracle|nop|arkevo-llm|harbor:[a-z0-9][a-z0-9._-]*|[A-Za-z_][\w.]*:[A-Za-z_]\w*)$"


class SolverConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=ID)
    description: str = Field(min_length=1)
    agent: str = Field(pattern=AGENT)
    model: str | None = Field(None, min_length=1)
    reasoning_effort: Literal["minimal", "low", "medium", "high"] | None = None
    timeout_sec: float | None = Field(None, gt=0, description="agent timeout; None: the task's")
    attempts: int = Field(3, ge=1, le=64, description="attempts per task unless a mode says")
    agent_kwargs: dict = Field(default_factory=dict)
    validated: bool = Field(False, description="checked on this project's tasks")

    @property
    def kind(self) -> str:
        if self.agent in SCRIPTED_AGENTS:
            return "scripted"
        if self.agent.startswith("harbor:") and self.agent.removeprefix("harbor:") in HARBOR_SCRIPTED:
            return "scripted"
        return "model"

    @property
    def label(self) -> str:
        if self.kind == "scripted":
            return SCRIPTED_LABEL
        model = self.model or "the worker's ARKEVO_LLM_MODEL"
        effort = f", reasoning effort {self.reasoning_effort}" if self.reasoning_effort else ""
        return f"model agent {self.agent}: {model}{effort}"

    def spec(self) -> SolverSpec:
        return SolverSpec(config_id=self.id, agent=self.agent, kind=self.kind, label=self.label,
                          model=self.model, reasoning_effort=self.reasoning_effort,
                          timeout_sec=self.timeout_sec, agent_kwargs=dict(self.agent_kwargs),
                          validated=self.validated)


class Mode(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str = Field(min_length=1)
    attempts: dict[str, int] = Field(min_length=1, description="config id -> attempts per task")


class SolverRegistry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    registry_version: str = Field(min_length=1)
    configs: list[SolverConfig] = Field(min_length=1)
    modes: dict[str, Mode] = Field(min_length=1)

    @model_validator(mode="after")
    def _references(self) -> SolverRegistry:
        ids = [c.id for c in self.configs]
        if len(ids) != len(set(ids)):
            dup = sorted({i for i in ids if ids.count(i) > 1})
            raise ValueError(f"config ids must be unique: {', '.join(dup)} repeated")
        for name, mode in self.modes.items():
            for config, n in mode.attempts.items():
                if config not in ids:
                    raise ValueError(f"mode {name!r} names unknown config {config!r}")
                if not 1 <= n <= 64:
                    raise ValueError(f"mode {name!r}: attempts of {config!r} must be 1..64")
        if FULL in self.modes:  # the formal figures are avg@3 / pass@3 of every model config
            full = self.modes[FULL].attempts
            short = [f"{c.id} runs {full.get(c.id, 0)}" for c in self.configs
                     if c.kind == "model" and full.get(c.id) != FULL_ATTEMPTS]
            if short:
                raise ValueError(f"mode {FULL!r} runs every model config {FULL_ATTEMPTS} times: "
                                 + ", ".join(short))
        return self

    def config(self, config_id: str) -> SolverConfig:
        for c in self.configs:
            if c.id == config_id:
                return c
        raise KeyError(config_id)

    def resolve(self, mode: str, only: list[str] | None = None) -> list[tuple[SolverConfig, int]]:
        """The configs a campaign in `mode` runs, with attempts per task, in registry order."""
        if mode not in self.modes:
            raise ValueError(f"unknown mode {mode!r} (registry modes: {', '.join(self.modes)})")
        attempts = self.modes[mode].attempts
        if only is not None:
            unknown = [c for c in only if c not in attempts]
            if unknown:
                raise ValueError(f"mode {mode!r} does not run {', '.join(unknown)} "
                                 f"(it runs {', '.join(attempts)})")
        chosen = [c for c in self.configs if c.id in attempts and (only is None or c.id in only)]
        return [(c, attempts[c.id]) for c in chosen]


def load_solver_registry(path: Path | str | None = None) -> SolverRegistry:
    """Read and validate a registry file; errors name the file and the field."""
    source = Path(path) if path else REGISTRY_PATH
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ContractError(str(source), "$", "file not found") from None
    except json.JSONDecodeError as exc:
        raise ContractError(str(source), "$", f"not JSON: {exc}") from None
    try:
        return SolverRegistry.model_validate(data)
    except ValidationError as exc:
        raise model_error(str(source), exc) from None
