"""The project's packages stand on floors: a package imports only from floors below its own
(or from itself). Written once, here; docs/architecture.md opens with the same table. Read
statically (ast: every import, the ones inside functions too), so nothing is imported to find
out. A new top-level package must be given a floor before it can import anything."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from workers.settings import PROJECT_ROOT

# Lowest first. On one floor, packages do not import each other.
FLOORS: list[tuple[str, ...]] = [
    ("contracts",),  # documents, payloads, schemas, named errors, digests: imports no project code
    ("storage", "observability"),  # content store and object stores; logs, metrics, redaction
    ("modelapi",),  # the one chat-completions client, retries, the request budget
    ("sandbox",),  # the trial sandbox, the Harbor environment, the agents
    ("blender",),  # running a bpy script, and the standalone bpy scripts
    ("verifiers",),  # probes, scoring profiles, calibration, evidence, VL judges
    ("privacy", "drafting", "seed_families"),  # the privacy checkpoints; the author model's drafting; seed families
    ("publications",),  # a publication's layout, its reader and writer
    ("dataset_revisions",),  # hash chain, selection, freeze, verify
    ("campaigns",),  # campaign statistics, figures, report
    ("exports", "review_site"),  # ZIP exports; the static review site
    ("activities",),  # Temporal activities: the side effects
    ("workflows",),  # Temporal workflows: orchestration only
    ("workers",),  # composition roots: worker pools, the stack, settings
    ("cli",),  # the `arkevo` command and `make demo`
    ("deploy",),  # containers and the deploy test
]
NOT_PACKAGES = {"tests", "bench", "scripts", "seeds", "datasets", "docs", "var"}
FLOOR = {package: level for level, packages in enumerate(FLOORS) for package in packages}


def top_level_packages() -> set[str]:
    return {p.name for p in PROJECT_ROOT.iterdir()
            if p.is_dir() and not p.name.startswith(".") and p.name not in NOT_PACKAGES
            and any(p.rglob("*.py"))}


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, top-level name) of every absolute import in the file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
    return found


def test_every_package_has_a_floor():
    assert top_level_packages() - set(FLOOR) == set(), "give the new package a floor in FLOORS"
    assert set(FLOOR) - top_level_packages() == set(), "FLOORS names a package that is gone"


@pytest.mark.parametrize("package", sorted(FLOOR))
def test_a_package_imports_only_from_floors_below(package):
    upward = []
    for path in sorted((PROJECT_ROOT / package).rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        for line, name in imports(path):
            if name in FLOOR and name != package and FLOOR[name] >= FLOOR[package]:
                upward.append(f"{path.relative_to(PROJECT_ROOT)}:{line} imports {name} "
                              f"(floor {FLOOR[name]}, {package} is on {FLOOR[package]})")
    assert upward == [], "\n".join(upward)
