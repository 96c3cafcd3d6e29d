"""The whole-seed check (`contracts.seed_check`) with this probe library bound: a rubric's
methods and params are checked against the built-ins and the draft's own `task_probes.py`.
What every caller uses; contracts/ itself imports nothing from verifiers/."""

from __future__ import annotations

from pathlib import Path

from contracts import seed_check
from contracts.models import Taxonomy
from contracts.seed_check import CheckedSeed
from verifiers.probe_catalogue import rule_methods


def check_seed_dir(seed_dir: Path, taxonomy: Taxonomy | None = None, *,
                   authored: bool = False) -> CheckedSeed:
    """`contracts.seed_check.check_seed_dir` against `verifiers.probe_catalogue.rule_methods`."""
    return seed_check.check_seed_dir(seed_dir, taxonomy, probe_methods=rule_methods, authored=authored)
