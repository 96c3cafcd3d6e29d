"""The same inputs give the same bytes: a seed admitted, built and packaged twice (two stores,
two sandboxed Blender processes, seconds apart) is one task package, and a script applied twice
gives one .blend, which is what makes a task version a function of its inputs
(docs/reproducibility.md). Without the frozen clock the same build differs in the
clock-seeded fields, which shows the test can fail."""

from __future__ import annotations

import hashlib
import shutil
import time
from pathlib import Path

import pytest

from activities.admission import AdmissionActivities
from activities.authoring import AuthoringActivities
from blender.blend_digest import scene_digest, sort_unordered_pairs
from blender.runner import LOCAL, BlenderJob
from contracts.payloads.admission import AdmissionInput
from contracts.payloads.authoring import AssembleInput, BuildWorkspaceInput
from storage.content import FilesystemStore
from verifiers import bpy_procs
from verifiers.seed_check import check_seed_dir

pytestmark = [pytest.mark.blender]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def test_a_seed_admitted_built_and_packaged_twice_is_one_package(tmp_path, project_root):
    """Stage 02 and 03 twice, on two stores, at two admission times, with two sandboxed
    Blender builds a second apart: the same workspace bytes and the same task package tree
    (the basis of the task version; freezing adds only the pipeline's ref)."""
    runs = []
    for name, admitted_at in (("first", "2026-01-01T00:00:00+00:00"), ("second", "2026-06-01T12:34:56+00:00")):
        store = FilesystemStore(tmp_path / name)
        admitted = AdmissionActivities(store, project_root).admit_seed(
            AdmissionInput("seeds/table-model", admitted_at))  # node materials: clock-seeded ids
        assert admitted.draft is not None
        authoring = AuthoringActivities(store)
        build = await authoring.build_workspace(
            BuildWorkspaceInput(admitted.seed_tree, admitted.reference_project, admitted.start_mode))
        package = authoring.assemble_task_package(
            AssembleInput(admitted.seed_tree, build, admitted.draft, "image-metric"))
        runs.append((build, package))
        time.sleep(1.1)  # a clock that was not frozen would have moved on
    (first_build, first), (second_build, second) = runs
    assert first_build.start_blend.sha256 == second_build.start_blend.sha256
    assert first_build.reference_blend.sha256 == second_build.reference_blend.sha256
    assert first.task_package.sha256 == second.task_package.sha256
    assert first.grading == second.grading and first.identity == second.identity


def test_a_reference_solution_applied_twice_is_the_same_bytes(tmp_path, project_root):
    seed = project_root / "seeds" / "table-model"
    start, reference = tmp_path / "start.blend", tmp_path / "reference.blend"
    bpy_procs.build_workspace(seed / check_seed_dir(seed).reference_project, "from_scratch", start, reference)
    solve = seed / "draft" / "solution" / "solve.py"
    outs = [bpy_procs.apply_script(start, solve, tmp_path / f"delivery-{i}.blend") for i in (1, 2)]
    assert sha256(outs[0]) == sha256(outs[1])


SCENE = """
import sys, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.mesh.primitive_cube_add()
mat = bpy.data.materials.new("Paint")
mat.use_nodes = True
for _ in range(4):
    mat.node_tree.nodes.new("ShaderNodeMath")
bpy.context.object.data.materials.append(mat)
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[-1], compress=False)
"""


def _save(tmp_path: Path, name: str, reproducible: bool) -> Path:
    script = tmp_path / "scene.py"
    script.write_text(SCENE)
    job = BlenderJob(LOCAL, reproducible=reproducible)
    out = tmp_path / name
    job.run_blocking(script, [job.output(out, f"/workspace/{name}")], timeout=120)
    return out


def test_the_frozen_clock_is_what_makes_the_bytes_equal(tmp_path):
    free = [_save(tmp_path, f"free-{i}.blend", reproducible=False) for i in (1, 2)]
    frozen = [_save(tmp_path, f"frozen-{i}.blend", reproducible=True) for i in (1, 2)]
    assert sha256(frozen[0]) == sha256(frozen[1])
    assert sha256(free[0]) != sha256(free[1])  # node ids seeded from the running clock
    assert scene_digest(free[0]) == scene_digest(free[1])  # ... and only those differ


def test_canonical_pairs_are_a_fixed_point_and_keep_the_scene(tmp_path):
    original = _save(tmp_path, "free.blend", reproducible=False)
    copy = tmp_path / "copy.blend"
    shutil.copy(original, copy)
    swapped = sort_unordered_pairs(copy)
    assert swapped > 0  # the factory screens' edges, written in allocation order
    assert sort_unordered_pairs(copy) == 0 and scene_digest(copy) == scene_digest(original)
