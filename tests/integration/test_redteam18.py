"""Red team 18 (issue 33), in real Blender: what changes only after frame 1, where the render
engines part, and what else lights, draws or frames a from-scratch model.

* fence-array passed with a clock-driven Geometry Nodes tree that deleted the pickets' faces
  (or gave them a Transparent material) after frame 1: no vertex moved, and ``Probe.state``
  digested vertex positions only, so frames 2.. read as frame 1.  It now digests faces,
  materials and every attribute (``drawn_digest``).
* mug-material passed with a Mix factor of Math Power(-1, 2.0005): 1 in EEVEE, 0 in Cycles and
  here.  A value the engines part on is unknown (``_engines_disagree``).
* fence-array passed with a camera shifted three frame widths off the fence: ``camera_keeps``
  now needs the parts in its picture (``_in_picture``).
* table-model passed with a world colour linked from a Value of 2000 (read as 1), a 2 cm cube
  glowing at strength 1e6 (only Light objects were lights), a 1 cm ball displaced 2 m round
  the table (only the named parts' displacement was read), stereoscopy and a BW output.
* product-lighting passed with an extra area light at a 2 degree Spread and with eight weak
  point lights each under the fill's light: ``light_on`` weighs an area light's Spread
  (``beam_gain``) and ``light_power`` bounds the extras together.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import local_probe, assert_refused_as_expected, build_scenes, probe_local
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = r'''
import sys
from math import radians
from pathlib import Path

import bpy
import bmesh  # after bpy
from mathutils import Vector

out = Path(sys.argv[-1])
TEAL = (0.05, 0.35, 0.35, 1.0)


def board(name="Top", size=(1.2, 0.8, 0.04), z=0.73):
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0)
    bmesh.ops.scale(bm, vec=size, verts=bm.verts)
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new(name, mesh)
    obj.location.z = z
    bpy.context.scene.collection.objects.link(obj)
    return obj


def glaze(factor=None):
    mat = bpy.data.materials.new("Glaze")
    mat.use_nodes = True
    tree = mat.node_tree
    bsdf = tree.nodes["Principled BSDF"]
    if factor is None:
        bsdf.inputs["Base Color"].default_value = TEAL
        return mat
    mix = tree.nodes.new("ShaderNodeMix")
    mix.data_type = "RGBA"
    inputs = {s.identifier: s for s in mix.inputs}
    inputs["A_Color"].default_value, inputs["B_Color"].default_value = (0.8, 0.05, 0.05, 1.0), TEAL
    power = tree.nodes.new("ShaderNodeMath")
    power.operation = "POWER"
    power.inputs[0].default_value, power.inputs[1].default_value = -1.0, factor
    tree.links.new(power.outputs[0], inputs["Factor_Float"])
    tree.links.new(next(s for s in mix.outputs if s.identifier == "Result_Color"), bsdf.inputs["Base Color"])
    return mat


def light(name, kind, watts, where, at=Vector((0.0, 0.0, 0.73))):
    obj = bpy.data.objects.new(name, bpy.data.lights.new(name, kind))
    obj.data.energy = watts
    obj.location = where
    obj.rotation_euler = (at - Vector(where)).to_track_quat("-Z", "Y").to_euler()
    bpy.context.scene.collection.objects.link(obj)
    return obj


def helper(material):
    cube = board("Brace", (0.02, 0.02, 0.02), 0.5)
    cube.data.materials.append(material)


def glowing(strength):
    mat = bpy.data.materials.new("Glow")
    mat.use_nodes = True
    tree = mat.node_tree
    tree.nodes.clear()
    glow = tree.nodes.new("ShaderNodeEmission")
    glow.inputs["Strength"].default_value = strength
    tree.links.new(glow.outputs[0], tree.nodes.new("ShaderNodeOutputMaterial").inputs["Surface"])
    return mat


def displaced(height):
    mat = bpy.data.materials.new("Bump")
    mat.use_nodes = True
    mat.displacement_method = "DISPLACEMENT"
    tree = mat.node_tree
    disp = tree.nodes.new("ShaderNodeDisplacement")
    disp.inputs["Height"].default_value, disp.inputs["Scale"].default_value = height, 1.0
    tree.links.new(disp.outputs[0], tree.nodes["Material Output"].inputs["Displacement"])
    return mat


def world_value(value=None, image=False):
    world = bpy.data.worlds.new("World")
    bpy.context.scene.world = world
    world.use_nodes = True
    tree = world.node_tree
    background = tree.nodes["Background"]
    if image:
        tex = tree.nodes.new("ShaderNodeTexEnvironment")
        tex.image = bpy.data.images.new("Sky", 8, 4)
        tree.links.new(tex.outputs["Color"], background.inputs["Color"])
    else:
        node = tree.nodes.new("ShaderNodeValue")
        node.outputs[0].default_value = value
        tree.links.new(node.outputs[0], background.inputs["Color"])


def clock(obj, after=1.5):
    tree = bpy.data.node_groups.new("Clock", "GeometryNodeTree")
    tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    given = tree.nodes.new("NodeGroupInput")
    time = tree.nodes.new("GeometryNodeInputSceneTime")
    later = tree.nodes.new("FunctionNodeCompare")
    later.data_type, later.operation = "FLOAT", "GREATER_THAN"
    tree.links.new(time.outputs["Frame"], later.inputs[0])
    later.inputs[1].default_value = after
    delete = tree.nodes.new("GeometryNodeDeleteGeometry")
    delete.domain, delete.mode = "FACE", "ONLY_FACE"
    tree.links.new(given.outputs[0], delete.inputs["Geometry"])
    tree.links.new(later.outputs["Result"], delete.inputs["Selection"])
    tree.links.new(delete.outputs["Geometry"], tree.nodes.new("NodeGroupOutput").inputs[0])
    obj.modifiers.new("Clock", "NODES").node_group = tree


def scene(name, factor=None, extra=None):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 3
    top = board()
    top.data.materials.append(glaze(factor))
    light("Ref", "AREA", 15.0, (2.0, -1.0, 1.0))
    if extra is not None:
        extra(top)
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


def camera(shift):
    def add(_top):
        cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
        bpy.context.scene.collection.objects.link(cam)
        cam.location, cam.rotation_euler = (0.0, -5.0, 0.73), (radians(90), 0.0, 0.0)
        cam.data.shift_x = shift
        bpy.context.scene.camera = cam
    return add


def stereo(_top):
    r = bpy.context.scene.render
    r.use_multiview, r.views_format = True, "STEREO_3D"


def grey(_top):
    bpy.context.scene.render.image_settings.color_mode = "BW"


def narrow_extra(spread):
    def add(_top):
        extra = light("Kicker", "AREA", 15.0, (1.6, -1.6, 1.1))
        extra.data.size, extra.data.spread = 0.2, radians(spread)
    return add


def swarm(_top):
    for k in range(8):
        light(f"Weak.{k}", "POINT", 14.0, (1.2 * (k - 3.5) / 3.5, -1.5, 1.0))


scene("board")
scene("power_whole", factor=2.0)  # (-1)^2 = 1 in both engines: the teal shows
scene("power_near_whole", factor=2.0005)  # EEVEE 1, Cycles 0
scene("camera_in_front", extra=camera(0.0))
scene("camera_shifted", extra=camera(3.0))
scene("stereo", extra=stereo)
scene("grey_output", extra=grey)
scene("world_value_5", extra=lambda top: world_value(5.0))
scene("world_value_2000", extra=lambda top: world_value(2000.0))
scene("world_image", extra=lambda top: world_value(image=True))
scene("helper_dark", extra=lambda top: helper(glowing(0.0)))
scene("helper_glowing", extra=lambda top: helper(glowing(1e6)))
scene("helper_displaced", extra=lambda top: helper(displaced(2.0)))
scene("extra_wide", extra=narrow_extra(180.0))
scene("extra_narrow", extra=narrow_extra(2.0))
scene("extra_swarm", extra=swarm)
scene("faces_kept", extra=lambda top: clock(top, after=1000.0))  # the tree is there, the clock never passes
scene("faces_gone_later", extra=clock)
'''

CASES = {
    "GLAZE": ("surface_shader", {"material": "Glaze", "shader": "BSDF_PRINCIPLED", "base_color": [0.05, 0.35, 0.35],
                                 "max_delta_e": 3.0}),
    "RENDER": ("render_overrides", {"colour_neutral": True, "max_world_strength": 10, "camera_keeps": ["Top"],
                                    "lights_on": {"objects": ["Top"], "max": 30}}),
    "OTHERS": ("others_drawn", {"expected": ["Top"], "others_within": {"min": [-0.61, -0.41, -0.01],
                                                                       "max": [0.61, 0.41, 0.76]}}),
    "EXTRAS": ("light_power", {"exclude": ["Ref"], "max_power": 15, "target": "Top", "no_brighter_than": "Ref"}),
    "SOLID": ("solid_parts", {"objects": ["Top"], "min_faces": 4, "min_volume": 0.001, "min_extent": 0.015}),
}
# delivery -> {criterion: what its detail names}
EXPECTED = {
    "board": {}, "power_whole": {}, "camera_in_front": {}, "world_value_5": {}, "world_image": {},
    "helper_dark": {}, "extra_wide": {}, "faces_kept": {},
    "power_near_whole": {"GLAZE": "Math Power of a negative base"},
    "camera_shifted": {"RENDER": "Cam's picture holds none of Top"},
    "stereo": {"RENDER": "multiview is True"},
    "grey_output": {"RENDER": "output colour mode BW"},
    "world_value_2000": {"RENDER": "max_world_strength is 2000.0"},
    "helper_glowing": {"RENDER": "Brace (an emitting surface)"},
    "helper_displaced": {"OTHERS": "Brace (its material moves its surface in a render"},
    "extra_narrow": {"EXTRAS": "Kicker: 15 W", "RENDER": "Kicker: 15 W"},
    "extra_swarm": {"EXTRAS": "the 8 lights together put"},
    "faces_gone_later": {"SOLID": "at frame 2"},
}
NEW_OPERATORS = ("clock_deletes_faces", "base_colour_engine_split", "camera_shifted_off_parts", "glowing_helper",
                 "displaced_helper", "stereo_top_bottom", "output_grey", "world_colour_linked_bright",
                 "extra_light_narrow_beam", "extra_light_swarm")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    return build_scenes(tmp_path_factory.mktemp("redteam18"), MAKE, CASES, "redteam18", "from_scratch")


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_later_frames_engine_splits_and_what_else_lights_draws_or_frames_are_measured(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                         scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)


def test_the_new_operators_apply_and_are_killed(scenes):
    with local_probe() as probe:
        rows = probe.mutate(scenes["tmp"] / "board.blend", scenes["task"], scenes["rubric"], None,
                            operators=list(NEW_OPERATORS))
    for row in rows:  # each refused by the criterion its class names (others may refuse it too)
        assert row["applicable"] and row["error"] is None, row
        refused = {c["id"] for c in row["criteria"] if not c["passed"]}
        assert refused, (row["operator"], row["criteria"])
    assert sorted(row["operator"] for row in rows) == sorted(NEW_OPERATORS)


def test_the_new_operators_are_listed():
    assert set(NEW_OPERATORS) <= set(OPERATOR_NAMES)
