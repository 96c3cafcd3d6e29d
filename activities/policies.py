"""Solver policies: who produces a delivery in a trial, and how each is labelled in records.

Scripted policies (oracle, nop, calibration scripts) are never presented as model results;
`llm` is a model agent whose endpoint comes from the worker's environment.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

SCRIPTED_LABEL = "scripted policy — not a model result"


@dataclass(frozen=True)
class Policy:
    name: str
    kind: str  # scripted | model
    label: str
    script: str | None = None  # bpy script inside the task package, applied through MCP

    def agent(self, script_path: str | None) -> tuple[str, dict]:
        """Harbor agent import path and kwargs that act out this policy."""
        if self.kind == "model":
            return "sandbox.agents.llm:LlmAgent", {}
        if self.script is None:
            return "sandbox.agents.scripted:ScriptedMcpAgent", {"policy": "nop"}
        return "sandbox.agents.scripted:ScriptedMcpAgent", {"policy": "script",
                                                             "script_path": script_path}


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
        return Policy("llm", "model", f"model agent: {model} via OpenAI-compatible endpoint")
    raise ValueError(f"unknown solver policy {name!r} (expected oracle, nop, llm or script:<path>)")
