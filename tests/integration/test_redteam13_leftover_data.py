"""Red team 13 (issue 33), in real Blender: a part's mesh kept in the file with no object.

asset-hygiene's `orphan_old_meshes` did the clean-up and kept copies of the imported meshes,
under their old names, with a fake user and no object: four leftover copies in the file that a
pipeline finding assets by mesh data name picks up.  `object_count` and `names_match` with
`whole_file` counted objects only; now a data-block of the type's kind that the file keeps but no
object uses counts as a leftover ("<data no object uses>/NAME") and its name is matched.  A mesh
nothing keeps is not saved, so it is no part of the file: an honest delivery has none.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import probe_local, assert_refused_as_expected, run_bpy, write_rule_task
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = r'''
import sys
from pathlib import Path

import bpy

out = Path(sys.argv[-1])


def scene(name, keep=None, drop=False):
    """One cube SM_Box (its mesh SM_Box); ``keep``: a copy of its mesh under that name kept by a
    fake user; ``drop``: a copy nothing keeps."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0.0, 0.0, 0.5))
    cube = bpy.context.active_object
    cube.name = cube.data.name = "SM_Box"
    if keep:
        copy = cube.data.copy()
        copy.name, copy.use_fake_user = keep, True
    if drop:
        cube.data.copy().name = "Cube.unused"
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


scene("clean")
scene("nothing_keeps_it", drop=True)
scene("old_name_kept", keep="Cube.001")
scene("conforming_copy_kept", keep="SM_BoxCopy")
bpy.ops.wm.save_as_mainfile(filepath=str(out / "start.blend"))
'''

CASES = {
    "COUNT": ("object_count", {"type": "MESH", "min": 1, "max": 1, "whole_file": True}),
    "NAMES": ("names_match", {"type": "MESH", "pattern": "SM_[A-Z][A-Za-z0-9]*", "data_same_name": True,
                              "whole_file": True}),
}
EXPECTED = {
    "clean": {},
    "nothing_keeps_it": {},
    "old_name_kept": {"COUNT": "2 MESH in the file", "NAMES": "<data no object uses>/Cube.001 (name)"},
    "conforming_copy_kept": {"COUNT": "2 MESH in the file"},
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam13")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    task, rubric = write_rule_task(tmp / "task", CASES, "redteam13-leftover", start_mode="from_scratch")
    return {"tmp": tmp, "task": task, "rubric": rubric}


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_a_mesh_kept_with_no_object_is_a_leftover(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                                   scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)


def test_the_leftover_is_named_in_the_evidence(scenes):
    report = probe_local(scenes["tmp"] / "old_name_kept.blend", scenes["task"], scenes["rubric"],
                                   scenes["tmp"] / "report-evidence.json")
    count = next(c for c in report["criteria"] if c["id"] == "COUNT")
    assert count["evidence"]["objects"] == ["SM_Box", "<data no object uses>/Cube.001"], count


def test_the_new_operators_are_listed():
    assert {"mesh_kept_no_object"} <= set(OPERATOR_NAMES)
