"""Where a trial's two phases run: the solver on the workspace, then the verifier on a copy.

`TrialRunner` is the seam the isolated sandbox (own UID, Landlock, no network) plugs into;
`LocalTrialRunner` runs both phases as plain Blender subprocesses on the worker.
"""

from __future__ import annotations

import shutil
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path

from activities.blender.runner import BLENDER_SCRIPTS, run_bpy

DELIVERY = "outputs/result.blend"


@dataclass(frozen=True)
class TrialLayout:
    """Directories of one trial. The solver sees only `workspace`; the verifier only `verifier`."""

    root: Path

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def privileged(self) -> Path:  # solution + calibration scripts, for scripted policies only
        return self.root / "privileged"

    @property
    def verifier(self) -> Path:
        return self.root / "verifier"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def delivery(self) -> Path:
        return self.workspace / DELIVERY


class SolverPolicy(ABC):
    """A way of producing a delivery from the workspace. Scripted policies are labelled so
    their results are never presented as model results."""

    name: str
    kind: str = "scripted"
    label: str = "scripted policy — not a model result"

    @abstractmethod
    async def solve(self, layout: TrialLayout, runner: "TrialRunner") -> None: ...


class NopPolicy(SolverPolicy):
    """Delivers the input untouched: the input baseline and the 'do nothing' solver."""

    name = "nop"

    async def solve(self, layout: TrialLayout, runner: "TrialRunner") -> None:
        layout.delivery.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(layout.workspace / "inputs" / "start.blend", layout.delivery)


class ScriptPolicy(SolverPolicy):
    """Applies a bpy script from the task package to the starting workspace."""

    def __init__(self, name: str, script: str):
        self.name = name
        self.script = script

    async def solve(self, layout: TrialLayout, runner: "TrialRunner") -> None:
        await runner.run_bpy_in_workspace(
            layout, layout.privileged / self.script,
            ["--in", "inputs/start.blend", "--out", DELIVERY],
        )


def policy_from_name(name: str) -> SolverPolicy:
    """`oracle`, `nop`, or `script:<path in package>` (calibration defects and variants)."""
    if name == "oracle":
        return ScriptPolicy("oracle", "solution/solve.py")
    if name == "nop":
        return NopPolicy()
    if name.startswith("script:"):
        return ScriptPolicy(name, name.removeprefix("script:"))
    raise ValueError(f"unknown solver policy {name!r} (expected oracle, nop or script:<path>)")


class TrialRunner(ABC):
    @abstractmethod
    async def run_bpy_in_workspace(self, layout: TrialLayout, script: Path, args: list[str]) -> None:
        """Run a bpy script as the solver, with the workspace as its only writable world."""

    @abstractmethod
    async def run_verifier(self, layout: TrialLayout) -> Path:
        """Probe `verifier/delivery/result.blend` with `verifier/tests/`; return the report path."""


class LocalTrialRunner(TrialRunner):
    """Unsandboxed: plain subprocesses on the worker. Stands in until the isolated sandbox."""

    def __init__(self, solver_timeout: float = 1800, verifier_timeout: float = 600):
        self.solver_timeout = solver_timeout
        self.verifier_timeout = verifier_timeout

    async def run_bpy_in_workspace(self, layout: TrialLayout, script: Path, args: list[str]) -> None:
        await run_bpy(
            BLENDER_SCRIPTS / "apply_script.py", [*args, "--script", str(script)],
            cwd=layout.workspace, timeout=self.solver_timeout, log=layout.logs / "solver.log",
        )

    async def run_verifier(self, layout: TrialLayout) -> Path:
        tests = layout.verifier / "tests"
        report = layout.verifier / "logs" / "report.json"
        report.parent.mkdir(parents=True, exist_ok=True)
        await run_bpy(
            tests / "rule_probe.py",
            ["--blend", str(layout.verifier / "delivery" / "result.blend"),
             "--task", str(tests / "task.json"), "--rubric", str(tests / "rubric.json"),
             "--out", str(report)],
            cwd=layout.verifier, timeout=self.verifier_timeout, log=layout.logs / "verifier.log",
        )
        return report
