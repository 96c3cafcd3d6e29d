"""Red team 6 (issue 33), what the file holds besides the scene, in real Blender.

Python that runs when the file is opened with scripts trusted (a text block registered as a
module, a driver whose expression only Python evaluates, on an object or inside a material's
node tree) makes every criterion 0, its detail naming what runs (``probe_core.python_when_trusted``):
the probe opens the file untrusted and cannot measure what a trusted open turns it into.  A text
block that is not registered, a simple-expression driver and a second scene that holds nothing
of its own pass.  Copies of the parts kept in another scene of the file, or in a collection no
scene shows, are counted and named by ``object_count`` / ``names_match`` with ``whole_file``;
without it they are not.  Blender runs unsandboxed (LOCAL): everything it runs here is this
test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import local_probe, probe_local, assert_operators_killed, assert_refused_as_expected, build_scenes

pytestmark = pytest.mark.blender

MAKE = r'''
import sys
from pathlib import Path

import bpy

out = Path(sys.argv[-1])
bpy.ops.wm.read_factory_settings(use_empty=True)
for name, x in (("SM_Alpha", 0.0), ("SM_Beta", 2.0)):
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(x, 0.0, 0.5))
    obj = bpy.context.active_object
    obj.name = obj.data.name = name
bpy.ops.wm.save_as_mainfile(filepath=str(out / "start.blend"))


def variant(name, change):
    bpy.ops.wm.open_mainfile(filepath=str(out / "start.blend"))
    change(bpy.context.scene)
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


def driver(target, path, index, expression):
    fcurve = target.driver_add(path, index)
    fcurve.driver.type = "SCRIPTED"
    var = fcurve.driver.variables.new()
    var.name, var.type = "v", "SINGLE_PROP"
    var.targets[0].id = bpy.data.objects["SM_Beta"]
    var.targets[0].data_path = "location.x"
    fcurve.driver.expression = expression


def honest(scene):
    driver(bpy.data.objects["SM_Alpha"], "location", 2, "v * 0 + 0.5 * (frame >= 1)")  # simple: no Python
    bpy.data.texts.new("notes.py").from_string("print('never registered')")
    bpy.data.scenes.new("Empty")
    bpy.data.scenes.new("Shared").collection.objects.link(bpy.data.objects["SM_Alpha"])


def text_module(scene):
    text = bpy.data.texts.new("tools.py")
    text.from_string("import bpy\nfor o in bpy.data.objects:\n    o.hide_render = True\n")
    text.use_module = True


def python_driver(scene):
    driver(bpy.data.objects["SM_Alpha"], "scale", 0, "len(str(v)) * 0 + 1")


def material_driver(scene):
    mat = bpy.data.materials.new("Paint")
    bpy.data.objects["SM_Beta"].data.materials.append(mat)
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    fcurve = bsdf.inputs["Roughness"].driver_add("default_value")
    fcurve.driver.type = "SCRIPTED"
    fcurve.driver.expression = "__import__('math').floor(0.5)"


def second_scene(scene):
    kept = bpy.data.scenes.new("Import")
    copy = bpy.data.objects["SM_Beta"].copy()
    copy.data = copy.data.copy()
    copy.name = copy.data.name = "Cube"
    kept.collection.objects.link(copy)


def stashed(scene):
    stash = bpy.data.collections.new("Stash")
    stash.use_fake_user = True
    copy = bpy.data.objects["SM_Beta"].copy()
    copy.name = "Cube.old"
    stash.objects.link(copy)


for name, change in [("honest", honest), ("text_module", text_module), ("python_driver", python_driver),
                     ("material_driver", material_driver), ("second_scene", second_scene),
                     ("stashed", stashed)]:
    variant(name, change)
'''

CASES = {
    "COUNT": ("object_count", {"type": "MESH", "min": 2, "max": 2, "whole_file": True}),
    "NAMES": ("names_match", {"type": "MESH", "pattern": "SM_[A-Z][a-z]*", "data_same_name": True, "min": 2,
                              "whole_file": True}),
    "COUNT_SCENE": ("object_count", {"type": "MESH", "min": 2, "max": 2}),
}
RUNS_PYTHON = "runs Python when opened with scripts trusted"
ALL_ZERO = dict.fromkeys(CASES, RUNS_PYTHON)
# delivery -> {criterion that must refuse it: what its detail names} (the others pass)
EXPECTED = {
    "start": {}, "honest": {},
    "text_module": ALL_ZERO,
    "python_driver": ALL_ZERO,
    "material_driver": ALL_ZERO,
    "second_scene": {"COUNT": "3 MESH in the file", "NAMES": "<scene: Import>/Cube (name)"},
    "stashed": {"COUNT": "3 MESH in the file", "NAMES": "<in no scene>/Cube.old (name"},
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    return build_scenes(tmp_path_factory.mktemp("redteam6-file"), MAKE, CASES, "redteam6-file", "from_scratch")


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_python_on_trusted_open_and_the_files_other_objects_are_refused(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                                   scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)
    if EXPECTED[delivery] is ALL_ZERO:
        assert all(c["score"] == 0 for c in report["criteria"]), report["criteria"]


def test_file_operators_apply_and_are_killed(scenes):
    killed_by = {"autorun_text_module": set(CASES), "leftover_scene_copies": {"COUNT", "NAMES"}}
    with local_probe() as probe:
        rows = probe.mutate(scenes["tmp"] / "start.blend", scenes["task"], scenes["rubric"], operators=list(killed_by))
    assert_operators_killed(rows, killed_by)
    autorun = next(r for r in rows if r["operator"] == "autorun_text_module")
    # the module was only registered, never run: the probe measured the file untouched, refused as Python
    assert all(RUNS_PYTHON in c["detail"] for c in autorun["criteria"]), autorun["criteria"]
