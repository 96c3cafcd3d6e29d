"""The models registry (`contracts/model_roles.json`): which model plays each role, where its
endpoint and key come from, and whether that pairing has been validated.

The registry names environment variables, never values: keys stay in the worker process that
makes the call (gpu worker for the author's tool loop, llm worker for the reviewer and the VL
judge) and never enter a sandbox, a payload or a record. `resolve_endpoint` turns a role into a
concrete endpoint from a worker's environment, or raises `ModelNotConfigured` naming exactly the
variables to set.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

REGISTRY_PATH = Path(__file__).resolve().parent / "model_roles.json"
ROLES = ("author", "reviewer", "calibration_judge")


class ModelRole(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str
    model: str = Field(min_length=1, description="model id used when model_env is unset")
    model_env: str = Field(pattern=r"^[A-Z][A-Z0-9_]*$")
    base_url_env: str = Field(pattern=r"^[A-Z][A-Z0-9_]*$")
    api_key_env: str = Field(pattern=r"^[A-Z][A-Z0-9_]*$")
    reasoning_effort: Literal["minimal", "low", "medium", "high"] | None = None
    max_steps: int = Field(1, ge=1, description="model calls per session (author: per round)")
    validated: bool = Field(False, description="this model has been checked on this role's work")


class ModelRegistry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    registry_version: str
    roles: dict[Literal["author", "reviewer", "calibration_judge"], ModelRole]


@cache
def load_registry(path: Path = REGISTRY_PATH) -> ModelRegistry:
    return ModelRegistry.model_validate(json.loads(Path(path).read_text()))


class ModelNotConfigured(RuntimeError):
    """A role's endpoint is not configured on this worker; the message names the variables."""

    def __init__(self, role: str, spec: ModelRole) -> None:
        self.role = role
        self.variables = [spec.base_url_env, spec.api_key_env, spec.model_env]
        super().__init__(
            f"no model endpoint for the {role} role on this worker: set {spec.base_url_env} "
            f"(an OpenAI-compatible base URL, e.g. https://host/v1) and {spec.api_key_env} in the "
            f"worker's environment ({spec.model_env} overrides the model, default {spec.model}); "
            f"see contracts/model_roles.json")


@dataclass(frozen=True)
class ModelEndpoint:
    """A role resolved on one worker. `api_key` is a secret: never put this in a payload."""

    role: str
    base_url: str
    model: str
    api_key: str | None
    reasoning_effort: str | None
    max_steps: int
    validated: bool

    def describe(self) -> dict:
        """What a record may say about the endpoint (no key)."""
        return {"role": self.role, "model": self.model, "endpoint": self.base_url.rstrip("/"),
                "reasoning_effort": self.reasoning_effort, "validated": self.validated}


def resolve_endpoint(role: str, environ: Mapping[str, str] | None = None) -> ModelEndpoint:
    spec = load_registry().roles.get(role)  # type: ignore[call-overload]
    if spec is None:
        raise KeyError(f"unknown model role {role!r}; the registry has {', '.join(ROLES)}")
    env = os.environ if environ is None else environ
    base_url = env.get(spec.base_url_env, "").strip()
    if not base_url:
        raise ModelNotConfigured(role, spec)
    return ModelEndpoint(role=role, base_url=base_url, model=env.get(spec.model_env) or spec.model,
                         api_key=env.get(spec.api_key_env) or None,
                         reasoning_effort=spec.reasoning_effort, max_steps=spec.max_steps,
                         validated=spec.validated)
