"""Red team 5 (issue 33), surface area, in real Blender: Principled layers that re-colour what a
render shows while the Base Color stays right, and a viewport colour solid view draws see-through.

A from-scratch scene (a cube whose Principled material is graded by its colour, and by its
viewport colour) and deliveries that each hold one trick the fifth red team found: a magenta
sheen, subsurface scattering metres deep, a blue Specular Tint, the viewport colour at alpha 0.
Each is refused by the criterion named; honest deliveries (a sheen of weight 0 whatever its
tint, a shallow subsurface, a grey specular tint) pass.  Blender runs unsandboxed (LOCAL):
everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import local_probe, probe_local, assert_operators_killed, assert_refused_as_expected, build_scenes, write_rule_task

pytestmark = pytest.mark.blender

MAKE = r'''
import sys
from pathlib import Path

import bpy

out = Path(sys.argv[-1])
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0.0, 0.0, 0.5))
cube = bpy.context.active_object
cube.name = "Cube"
glaze = bpy.data.materials.new("Glaze")
glaze.use_nodes = True
glaze.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.1, 0.4, 0.5, 1.0)
glaze.diffuse_color = (0.1, 0.4, 0.5, 1.0)
cube.data.materials.append(glaze)
scene.render.engine = "CYCLES"
bpy.ops.wm.save_as_mainfile(filepath=str(out / "start.blend"))


def variant(name, change):
    bpy.ops.wm.open_mainfile(filepath=str(out / "start.blend"))
    mat = bpy.data.materials["Glaze"]
    change(mat, mat.node_tree.nodes["Principled BSDF"].inputs)
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


def honest(mat, inputs):
    inputs["Sheen Tint"].default_value = (1.0, 0.0, 1.0, 1.0)  # weight 0: no sheen shows
    inputs["Subsurface Weight"].default_value = 0.1
    inputs["Subsurface Scale"].default_value = 0.05
    inputs["Specular Tint"].default_value = (0.5, 0.5, 0.5, 1.0)


def sheen(mat, inputs):
    inputs["Sheen Weight"].default_value = 1.0
    inputs["Sheen Tint"].default_value = (1.0, 0.0, 1.0, 1.0)


def subsurface(mat, inputs):
    inputs["Subsurface Weight"].default_value = 1.0
    inputs["Subsurface Scale"].default_value = 5.0
    inputs["Subsurface Radius"].default_value = (1.0, 1.0, 1.0)


def tint(mat, inputs):
    inputs["Specular Tint"].default_value = (0.1, 0.2, 1.0, 1.0)


def viewport_alpha(mat, inputs):
    mat.diffuse_color = (*mat.diffuse_color[:3], 0.0)


for name, change in [("honest", honest), ("sheen", sheen), ("subsurface", subsurface), ("tint", tint),
                     ("viewport_alpha", viewport_alpha)]:
    variant(name, change)
'''

CASES = {
    "SHADER": ("surface_shader", {"material": "Glaze", "shader": "BSDF_PRINCIPLED", "base_color": [0.1, 0.4, 0.5],
                                  "max_delta_e": 3.0}),
    "VIEWPORT": ("base_color", {"material": "Glaze", "expected": [0.1, 0.4, 0.5], "max_delta_e": 5.0,
                                "source": "viewport"}),
}
# delivery -> {criterion that must refuse it: what its detail names} (the others pass)
EXPECTED = {
    "start": {}, "honest": {},
    "sheen": {"SHADER": "Sheen Weight x Sheen Tint 1"},
    "subsurface": {"SHADER": "Subsurface Scale x Radius 5"},
    "tint": {"SHADER": "Specular Tint's colour"},
    "viewport_alpha": {"VIEWPORT": "its alpha is 0"},
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    return build_scenes(tmp_path_factory.mktemp("redteam5-surface"), MAKE, CASES, "redteam5-surface", "from_scratch")


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_each_layer_trick_is_refused_and_honest_work_passes(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                                   scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)


def test_a_rubric_widens_the_layer_bounds(scenes, tmp_path):
    """A task that wants a velvet or a wax says so: its bounds let the sheen and the subsurface pass."""
    method, params = CASES["SHADER"]
    task, rubric = write_rule_task(tmp_path, {"SHADER": (method, {**params, "max_sheen": 1.0,
                                                                  "max_subsurface_radius": 5.0})}, "widened")
    for delivery in ("sheen", "subsurface"):
        report = probe_local(scenes["tmp"] / f"{delivery}.blend", task, rubric,
                                       tmp_path / f"report-{delivery}.json")
        shader = report["criteria"][0]
        assert shader["passed"], (delivery, shader["detail"])


# --- the operators (verifiers/mutations.py, "red team 5: Principled layers") ---------------------

LAYER_OPERATORS = {"sheen_veil": {"SHADER"}, "subsurface_deep": {"SHADER"}, "specular_tint_coloured": {"SHADER"},
                   "viewport_alpha_zero": {"VIEWPORT"}}


def test_layer_operators_apply_and_are_killed(scenes):
    with local_probe() as probe:
        rows = probe.mutate(scenes["tmp"] / "start.blend", scenes["task"], scenes["rubric"],
                            operators=list(LAYER_OPERATORS))
    assert_operators_killed(rows, LAYER_OPERATORS)
