"""Every Harbor task directory the project writes passes `harbor lint` (default rules), and its
task image holds what bpy needs: the trial's view (`write_harbor_task` alone) and a
publication's, VL-weighted (`write_packaged_grading`: tests/grading.json, reference renders).

The packages are admitted and assembled from the bundled table-model seed with placeholder
blends (no Blender runs), as tests/unit/test_task_package.py does. The library check derives
bpy's needs on this machine — `ldd` of bpy's __init__*.so, each system library mapped to its
Debian package with `dpkg -S` — and skips, saying why, where either tool is missing.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path, PurePosixPath

import pytest
from harbor.models.task.task import Task

from activities.harbor_task import write_harbor_task, write_packaged_grading
from sandbox.isolation.taskimage import read_task_image
from tests.unit.test_task_package import assemble_table_model

ROOT = Path(__file__).resolve().parents[2]
HARBOR = Path(sys.executable).with_name("harbor")
# In every Debian image (dpkg and apt themselves need them): glibc and libgcc's runtime.
DEBIAN_BASE = {"libc6", "libgcc-s1"}


@pytest.fixture(scope="module")
def task_dirs(tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("harbor-lint")
    store, _, assembled = assemble_table_model(tmp)
    trial = write_harbor_task(store, assembled.task_package, tmp / "trial" / "task", assembled.identity)
    publication = write_harbor_task(store, assembled.task_package, tmp / "publication" / "task",
                                    assembled.identity)
    grading = assembled.grading
    assert grading.uses_vl, "table-model's profile weights VL: the publication fixture needs it"
    render = store.put_bytes(b"\x89PNG placeholder")
    renders = store.put_tree_manifest({f"{view}.png": {"sha256": render.sha256, "size": render.size}
                                       for view in ("front", "side", "top", "close")})
    write_packaged_grading(store, dataclasses.replace(grading, reference_evidence=renders),
                           publication / "tests")
    assert (publication / "tests" / "grading.json").is_file()
    assert not (trial / "tests" / "grading.json").exists()
    return {"trial": trial, "publication": publication}


def _lint(task: Path, *rules: str) -> list[dict]:
    if not HARBOR.is_file():
        pytest.skip(f"no harbor console script beside {sys.executable}")
    select = [arg for rule in rules for arg in ("--select", rule)]
    done = subprocess.run([str(HARBOR), "lint", "--json", *select, str(task)],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"})
    assert done.stdout.strip().startswith("["), f"harbor lint failed ({done.returncode}):\n" \
                                                f"{done.stdout}\n{done.stderr}"
    return json.loads(done.stdout)


@pytest.mark.parametrize("kind", ["trial", "publication"])
def test_harbor_lint_is_clean_with_the_default_rules(task_dirs, kind):
    assert _lint(task_dirs[kind]) == []


@pytest.mark.parametrize("kind", ["trial", "publication"])
def test_with_every_rule_only_the_base_image_digest_is_left(task_dirs, kind):
    """root-agent holds (a non-root agent user); unpinned-image cannot: the base image is a
    tag, which a locally imported debian:trixie-slim has no registry digest for (docs/exports.md)."""
    findings = _lint(task_dirs[kind], "ALL")
    assert [(f["rule"], Path(f["path"]).name, f.get("line")) for f in findings] == \
        [("unpinned-image", "Dockerfile", 1)], findings


@pytest.mark.parametrize("kind", ["trial", "publication"])
def test_harbor_loads_the_task_under_its_registry_name(task_dirs, kind):
    """`[task] name` is what `harbor publish` files the package under; [metadata] is the identity."""
    task = Task(task_dirs[kind])
    assert task.name == "arkevo/table-model"
    assert task.config.metadata["task_id"] == "table-model"
    assert task.config.metadata["task_version"] == task.config.task.version


def _dockerfile(task: Path) -> str:
    return (task / "environment" / "Dockerfile").read_text()


def _apt_packages(dockerfile: str) -> set[str]:
    joined = dockerfile.replace("\\\n", " ")
    found: set[str] = set()
    for match in re.finditer(r"apt-get install ([^&\n]*)", joined):
        found.update(word for word in match[1].split() if not word.startswith("-"))
    return found


def test_the_image_runs_bpy_from_a_venv_as_a_non_root_agent(task_dirs):
    task = task_dirs["trial"]
    dockerfile = _dockerfile(task)
    assert dockerfile.startswith("FROM debian:trixie-slim\n")
    assert {"python3.13", "python3.13-venv"} <= _apt_packages(dockerfile)
    # Pillow beside bpy: the packaged VL grading decodes renders with it (verifiers/vl.py)
    assert (f"python3 -m pip install --no-cache-dir bpy=={version('bpy')} pillow=={version('pillow')}\n"
            in dockerfile)
    assert "ENV PATH=/opt/bpy/bin:$PATH\n" in dockerfile
    assert re.search(r"^RUN useradd .*\bagent$", dockerfile, re.M)
    assert "COPY --chown=agent:agent workspace /workspace\n" in dockerfile
    assert 'user = "agent"' in (task / "task.toml").read_text()


def test_the_sandbox_keeps_its_own_runtime_for_the_image(task_dirs):
    """arkevo's sandbox honours COPY/WORKDIR/ENV only: the workspace lands in /workspace and the
    `$PATH` extension leaves its PATH (the worker's venv first) alone."""
    environment = task_dirs["trial"] / "environment"
    image = read_task_image(environment, PurePosixPath("/workspace"))
    assert image.copies == [((environment / "workspace").resolve(), PurePosixPath("/workspace"))]
    assert image.workdir == PurePosixPath("/workspace")
    assert "PATH" not in image.env
    assert any(line.startswith("ENV PATH: refers to $PATH") for line in image.ignored), image.ignored


def _bpy_debian_packages() -> set[str]:
    for tool in ("ldd", "dpkg"):
        if shutil.which(tool) is None:
            pytest.skip(f"`{tool}` is not on this machine: cannot derive bpy's Debian packages")
    spec = importlib.util.find_spec("bpy")
    origin = Path(spec.origin) if spec and spec.origin else None
    if origin is None or origin.suffix != ".so":
        pytest.skip(f"bpy's module is not a shared library here ({origin})")
    out = subprocess.run(["ldd", str(origin)], capture_output=True, text=True, check=True).stdout
    missing = re.findall(r"^\s*(\S+) => not found", out, re.M)
    assert not missing, f"ldd: bpy needs libraries this machine lacks: {missing}"
    bundled = origin.parent.resolve()
    packages, unowned = set(), []
    for path in re.findall(r"=> (/\S+) \(0x", out):
        if Path(path).resolve().is_relative_to(bundled):
            continue  # shipped inside the wheel (bpy/lib)
        package = _dpkg_owner(Path(path))
        if package is None:
            unowned.append(path)
        else:
            packages.add(package)
    if unowned:
        pytest.skip(f"libraries not from a Debian package here: {unowned}")
    return packages


def _dpkg_owner(path: Path) -> str | None:
    """The package owning `path`, trying the merged-/usr spellings (/lib vs /usr/lib)."""
    real = path.resolve()
    candidates = [path, real]
    for candidate in (path, real):
        text = str(candidate)
        candidates.append(Path(text.removeprefix("/usr")) if text.startswith("/usr/")
                          else Path("/usr" + text))
    for candidate in dict.fromkeys(candidates):
        done = subprocess.run(["dpkg", "-S", str(candidate)], capture_output=True, text=True)
        if done.returncode == 0 and done.stdout:
            return done.stdout.split(":", 1)[0].split(",")[0].strip()
    return None


@pytest.mark.parametrize("kind", ["trial", "publication"])
def test_the_image_installs_every_library_bpy_links(task_dirs, kind):
    needed = _bpy_debian_packages() - DEBIAN_BASE
    installed = _apt_packages(_dockerfile(task_dirs[kind]))
    assert needed, "ldd found no system library for bpy: the derivation is broken"
    assert needed <= installed, f"the task image misses {sorted(needed - installed)}"
    # What bpy loads at run time without a display (dlopen, invisible to ldd): EGL + Mesa.
    assert {"libegl1", "libegl-mesa0", "libgl1-mesa-dri"} <= installed
