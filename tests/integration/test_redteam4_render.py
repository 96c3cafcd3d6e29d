"""Red team 4 (issue 33), in real Blender: what the render's view layer, world and materials do
to a part the geometry measures right.

A from-scratch scene (a cube with an opaque Principled material, a camera, a sun) and deliveries
that each hide the cube from every render without touching its mesh: the view layer's Surfaces
filter off, a view-layer Material Override with a Transparent BSDF, the cube's material at alpha
0, a Transparent BSDF, a clear glass, a volume-only material, a dense world volume.  Each is
refused by the criterion named; honest deliveries (a Diffuse BSDF, a Principled with a thin coat,
a world volume the view layer's Volumes filter leaves out) pass.  Blender runs unsandboxed
(LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations


import pytest

from tests.probe_cases import local_probe, probe_local, assert_operators_killed, assert_refused_as_expected, build_scenes

pytestmark = pytest.mark.blender

MAKE = r'''
import sys
from math import radians
from pathlib import Path

import bpy

out = Path(sys.argv[-1])
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0.0, 0.0, 0.5))
cube = bpy.context.active_object
cube.name = "Cube"
wood = bpy.data.materials.new("Wood")
wood.use_nodes = True
wood.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.6, 0.4, 0.2, 1.0)
cube.data.materials.append(wood)
cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
cam.location, cam.rotation_euler = (0.0, -6.0, 2.0), (radians(75), 0.0, 0.0)
scene.collection.objects.link(cam)
sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
scene.collection.objects.link(sun)
scene.camera = cam
scene.render.engine = "CYCLES"
scene.world = bpy.data.worlds.new("World")
scene.world.use_nodes = True
bpy.ops.wm.save_as_mainfile(filepath=str(out / "start.blend"))


def variant(name, change):
    bpy.ops.wm.open_mainfile(filepath=str(out / "start.blend"))
    change(bpy.context.scene, bpy.data.objects["Cube"])
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


def surface_only(name, kind):
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    tree = mat.node_tree
    for node in list(tree.nodes):
        tree.nodes.remove(node)
    out_node = tree.nodes.new("ShaderNodeOutputMaterial")
    tree.links.new(tree.nodes.new(kind).outputs[0], out_node.inputs["Surface"])
    return mat


def principled(cube):
    return cube.data.materials[0].node_tree.nodes["Principled BSDF"]


def diffuse(scene, cube):
    cube.data.materials[0] = surface_only("Matte", "ShaderNodeBsdfDiffuse")


def coated(scene, cube):
    principled(cube).inputs["Coat Weight"].default_value = 0.3


def fog(scene, cube, density=1000.0):
    tree = scene.world.node_tree
    out_node = next(n for n in tree.nodes if n.type == "OUTPUT_WORLD")
    absorb = tree.nodes.new("ShaderNodeVolumeAbsorption")
    absorb.inputs["Density"].default_value = density
    tree.links.new(absorb.outputs[0], out_node.inputs["Volume"])


def fog_filtered(scene, cube):
    fog(scene, cube)
    for view_layer in scene.view_layers:
        view_layer.use_volumes = False


def surfaces_off(scene, cube):
    for view_layer in scene.view_layers:
        view_layer.use_solid = False


def override(scene, cube):
    for view_layer in scene.view_layers:
        view_layer.material_override = surface_only("Ghost", "ShaderNodeBsdfTransparent")


def alpha0(scene, cube):
    principled(cube).inputs["Alpha"].default_value = 0.0


def transparent(scene, cube):
    cube.data.materials[0] = surface_only("Ghost", "ShaderNodeBsdfTransparent")


def glass(scene, cube):
    principled(cube).inputs["Transmission Weight"].default_value = 1.0
    principled(cube).inputs["Roughness"].default_value = 0.0


def volume_only(scene, cube):
    mat = cube.data.materials[0]
    tree = mat.node_tree
    out_node = next(n for n in tree.nodes if n.type == "OUTPUT_MATERIAL")
    for link in list(out_node.inputs["Surface"].links):
        tree.links.remove(link)
    volume = tree.nodes.new("ShaderNodeVolumePrincipled")
    volume.inputs["Density"].default_value = 0.0
    tree.links.new(volume.outputs[0], out_node.inputs["Volume"])


for name, change in [("diffuse", diffuse), ("coated", coated), ("fog_filtered", fog_filtered),
                     ("surfaces_off", surfaces_off), ("override", override), ("alpha0", alpha0),
                     ("transparent", transparent), ("glass", glass), ("volume_only", volume_only),
                     ("fog", fog)]:
    variant(name, change)
'''

CASES = {
    "SHOWN": ("parts_shown", {"objects": ["Cube"]}),
    "OTHERS": ("others_drawn", {"expected": ["Cube"]}),
}
# delivery -> {criterion that must refuse it: what its detail names} (the others pass)
EXPECTED = {
    "start": {}, "diffuse": {}, "coated": {}, "fog_filtered": {},
    "surfaces_off": {"SHOWN": "hidden from render: Cube"},
    "override": {"SHOWN": "see-through in a render: Cube"},
    "alpha0": {"SHOWN": "see-through in a render: Cube"},
    "transparent": {"SHOWN": "see-through in a render: Cube"},
    "glass": {"SHOWN": "see-through in a render: Cube"},
    "volume_only": {"SHOWN": "volume-only"},
    "fog": {"OTHERS": "a volume drawn over everything"},
}



@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    return build_scenes(tmp_path_factory.mktemp("redteam4-render"), MAKE, CASES, "redteam4-render", "from_scratch")


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_each_hiding_trick_is_refused_and_honest_work_passes(scenes, delivery):
    out = scenes["tmp"] / f"report-{delivery}.json"
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"], out)
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)


# --- the operators (verifiers/mutations.py, "red team 4") ---------------------------------------

RENDER_OPERATORS = {"view_layer_surfaces_off": {"SHOWN"}, "material_override_transparent": {"SHOWN"},
                    "parts_transparent": {"SHOWN"}, "world_volume_fog": {"OTHERS"}}


def test_render_operators_apply_and_are_killed(scenes):
    with local_probe() as probe:
        rows = probe.mutate(scenes["tmp"] / "start.blend", scenes["task"], scenes["rubric"],
                            operators=list(RENDER_OPERATORS))
    assert_operators_killed(rows, RENDER_OPERATORS)
