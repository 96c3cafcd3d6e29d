"""Red team 7 (issue 33), surface area, in real Blender: a metal that mirrors its Base Color
away, and a second Material Output that only Cycles renders.

A from-scratch scene (a cube whose Principled material is graded by its shader, its colour, the
faces it covers and whether the part shows), rendered with EEVEE, and deliveries that each hold
one trick the seventh red team found: Metallic 1 at Roughness 0 (a chrome mirror), and a
Transparent BSDF on a Material Output targeted at Cycles (EEVEE reads the untouched All output,
a Cycles render shows no part).  Each is refused by the criteria named; honest deliveries (a
Cycles output showing the same Principled, a rubric that allows a metal) pass.  Blender runs
unsandboxed (LOCAL): everything it runs here is this test's own code."""

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
scene.render.engine = "BLENDER_EEVEE"
bpy.ops.wm.save_as_mainfile(filepath=str(out / "start.blend"))


def variant(name, change):
    bpy.ops.wm.open_mainfile(filepath=str(out / "start.blend"))
    mat = bpy.data.materials["Glaze"]
    change(mat, mat.node_tree)
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


def cycles_output(tree, shader):
    node = tree.nodes.new("ShaderNodeOutputMaterial")
    node.target = "CYCLES"
    tree.links.new(shader.outputs[0], node.inputs["Surface"])


def honest(mat, tree):  # a Cycles output showing the same Principled: both engines render it
    cycles_output(tree, tree.nodes["Principled BSDF"])


def metallic(mat, tree):
    tree.nodes["Principled BSDF"].inputs["Metallic"].default_value = 1.0
    tree.nodes["Principled BSDF"].inputs["Roughness"].default_value = 0.0


def ghost(mat, tree):
    cycles_output(tree, tree.nodes.new("ShaderNodeBsdfTransparent"))


for name, change in [("honest", honest), ("metallic", metallic), ("ghost", ghost)]:
    variant(name, change)
'''

CASES = {
    "SHADER": ("surface_shader", {"material": "Glaze", "shader": "BSDF_PRINCIPLED", "base_color": [0.1, 0.4, 0.5],
                                  "max_delta_e": 3.0}),
    "FACES": ("material_on_faces", {"object": "Cube", "material": "Glaze"}),
    "SHOWN": ("parts_shown", {"objects": ["Cube"]}),
    "COLOUR": ("base_color", {"material": "Glaze", "expected": [0.1, 0.4, 0.5], "max_delta_e": 5.0}),
}
CYCLES = "under the CYCLES Material Output"
# delivery -> {criterion that must refuse it: what its detail names} (the others pass)
EXPECTED = {
    "start": {}, "honest": {},
    "metallic": {"SHADER": "Metallic 1 outside <= 0"},
    "ghost": {"SHADER": CYCLES, "FACES": CYCLES, "SHOWN": CYCLES, "COLOUR": CYCLES},
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    return build_scenes(tmp_path_factory.mktemp("redteam7-surface"), MAKE, CASES, "redteam7-surface", "from_scratch")


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_a_mirror_metal_and_a_cycles_only_output_are_refused(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                                   scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)


def test_a_rubric_that_allows_a_metal_passes_it(scenes, tmp_path):
    """A task that wants a metal (mug-material's gold rim) says so: ``max_metallic`` 1."""
    method, params = CASES["SHADER"]
    task, rubric = write_rule_task(tmp_path, {"SHADER": (method, {**params, "max_metallic": 1.0})}, "metal")
    report = probe_local(scenes["tmp"] / "metallic.blend", task, rubric, tmp_path / "report.json")
    shader = report["criteria"][0]
    assert shader["passed"], shader["detail"]


# --- the operators (verifiers/mutations.py, "red team 7: surface") --------------------------------

SURFACE_OPERATORS = {"metallic_mirror": {"SHADER"}, "engine_output_ghost": {"SHADER", "FACES", "SHOWN", "COLOUR"}}


def test_surface_operators_apply_and_are_killed(scenes):
    with local_probe() as probe:
        rows = probe.mutate(scenes["tmp"] / "start.blend", scenes["task"], scenes["rubric"],
                            operators=list(SURFACE_OPERATORS))
    assert_operators_killed(rows, SURFACE_OPERATORS)
