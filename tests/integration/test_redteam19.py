"""Red team 19 (issue 33), in real Blender: what the frames show between them, the output Blender
picks, the node evaluator's edge cases, animation written into another data-block, and the file
as it opens.

* robot-carry passed with the forearm keyed Constant (or under a Stepped F-modifier, or turned
  the long way round) from one side of the box at frame 6 to the other at frame 7: the subframes
  of the animation never showed it between.  ``solids_apart`` now also carries each part along
  the shortest motion from one frame's pose to the next (``_screw_power``) and judges it there.
* crate-texture passed with a Light Output aimed at the engine in the crate's material (Blender
  picks it over the Material Output), with an Exclusion Blender floors after its factor, and
  with a Mix factor read off the hue of a colour whose largest channel is 0 (Blender: no hue).
* render-setup passed with a line style's driver writing through its modifier's target into the
  sun, the camera and the planter: ``scene_unchanged`` refuses animation paths into another
  data-block.
* asset-hygiene passed with the props disabled in viewports (their own switch or their
  collection's), drawn as bounds, and with the old meshes kept alive from a packed library:
  the snapshot holds how the file shows each object, and linked data counts as the file's.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import (
    assert_operators_killed, assert_refused_as_expected, local_probe, probe_local, run_bpy, write_rule_task,
)
from verifiers import bpy_procs
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = r'''
import math
import sys
from pathlib import Path

import bpy
import bmesh  # after bpy
from bpy_extras import anim_utils
from mathutils import Vector

out = Path(sys.argv[-1])


def box(name, size, location, uvs=False):
    bm = bmesh.new()
    if uvs:
        bm.loops.layers.uv.new("UVMap")
    bmesh.ops.create_cube(bm, size=1.0, calc_uvs=uvs)
    bmesh.ops.scale(bm, vec=size, verts=bm.verts)
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new(name, mesh)
    obj.location = location
    bpy.context.scene.collection.objects.link(obj)
    return obj


def save(name):
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


def curves(obj):
    anim = obj.animation_data
    return anim_utils.action_get_channelbag_for_slot(anim.action, anim.action_slot).fcurves


# -- between frames: a 10 cm bar beside a 25 cm box, keyed along y -----------------------------
def sweep(name, ys, interpolation="BEZIER", stepped=False):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    box("Box", (0.25, 0.25, 0.25), (0.0, 0.0, 0.5))
    bar = box("Bar", (0.1, 0.1, 0.1), (0.0, ys[0], 0.5))
    for frame, y in enumerate(ys, start=1):
        bar.location.y = y
        bar.keyframe_insert("location", index=1, frame=frame)
    for fc in curves(bar):
        for key in fc.keyframe_points:
            key.interpolation = interpolation
        if stepped:
            fc.modifiers.new("STEPPED")
    save(name)


# a 1 m arm on a pivot, 40 cm beside the box's side: it swings 60 degrees past the box's far
# side between frames 2 and 3 (the short way crosses the box), keyed the long way round
def swing(name, long_way):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    box("Box", (0.25, 0.25, 0.25), (0.6, 0.0, 0.5))
    pivot = bpy.data.objects.new("Pivot", None)
    bpy.context.scene.collection.objects.link(pivot)
    pivot.location = (0.0, 0.0, 0.5)
    arm = box("Bar", (1.0, 0.05, 0.05), (0.5, 0.0, 0.0))
    arm.parent = pivot
    for frame, degrees in ((1, 40.0), (2, 30.0), (3, -30.0 + (360.0 if long_way else 0.0))):
        pivot.rotation_euler.z = math.radians(degrees)
        pivot.keyframe_insert("rotation_euler", index=2, frame=frame)
    for fc in curves(pivot):
        for key in fc.keyframe_points:
            key.interpolation = "LINEAR"
    save(name)


sweep("bar_beside", [0.4, 0.38, 0.36])
sweep("bar_jumps", [0.4, -0.4, -0.4], interpolation="CONSTANT")
sweep("bar_stepped", [0.4, -0.4, -0.4], stepped=True)
sweep("bar_jumps_away", [0.4, 0.9, 0.9], interpolation="CONSTANT")  # a jump that stays on its side
swing("arm_short_way", long_way=False)
swing("arm_long_way", long_way=True)


# -- the texture: a crate in front of a camera ---------------------------------------------------
def crate(name, chain=None, extra=None):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    obj = box("Crate", (1.0, 1.0, 1.0), (0.0, 0.0, 0.5), uvs=True)
    cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
    bpy.context.scene.collection.objects.link(cam)
    cam.location = Vector((2.6, -3.0, 2.0))
    cam.rotation_euler = (Vector((0.0, 0.0, 0.5)) - cam.location).to_track_quat("-Z", "Y").to_euler()
    bpy.context.scene.camera = cam
    image = bpy.data.images.new("Grid", 256, 256)
    image.generated_type = "COLOR_GRID"
    mat = bpy.data.materials.new("Wood")
    mat.use_nodes = True
    tree = mat.node_tree
    bsdf = tree.nodes["Principled BSDF"]
    tex = tree.nodes.new("ShaderNodeTexImage")
    tex.image = image
    colour = tex.outputs["Color"] if chain is None else chain(tree, tex.outputs["Color"])
    tree.links.new(colour, bsdf.inputs["Base Color"])
    if extra is not None:
        extra(tree)
    obj.data.materials.append(mat)
    save(name)


def mix(tree, blend, fac, a, b):
    node = tree.nodes.new("ShaderNodeMix")
    node.data_type, node.blend_type = "RGBA", blend
    sockets = {s.identifier: s for s in node.inputs}
    for key, value in (("Factor_Float", fac), ("A_Color", a), ("B_Color", b)):
        if isinstance(value, bpy.types.NodeSocket):
            tree.links.new(value, sockets[key])
        else:
            sockets[key].default_value = value
    return next(s for s in node.outputs if s.identifier == "Result_Color")


PLAIN = (0.45, 0.3, 0.15, 1.0)


def exclusion(tree, colour, b=-100.0):
    """plain + 2 x Exclusion(0.3, 0.49 x image, b): Blender floors it after the factor.  ``b``
    through a Value node: a colour socket's own value cannot be negative."""
    scaled = mix(tree, "MULTIPLY", 1.0, colour, (0.49, 0.49, 0.49, 1.0))
    value = tree.nodes.new("ShaderNodeValue")
    value.outputs[0].default_value = b
    excluded = mix(tree, "EXCLUSION", 0.3, scaled, value.outputs[0])
    return mix(tree, "ADD", 1.0, PLAIN, mix(tree, "MULTIPLY", 1.0, excluded, (2.0, 2.0, 2.0, 1.0)))


def hue_switch(rgb):
    def chain(tree, colour):
        combine = tree.nodes.new("ShaderNodeCombineColor")
        for key, v in zip(("Red", "Green", "Blue"), rgb):
            combine.inputs[key].default_value = v
        separate = tree.nodes.new("ShaderNodeSeparateColor")
        separate.mode = "HSV"
        tree.links.new(combine.outputs[0], separate.inputs[0])
        times = tree.nodes.new("ShaderNodeMath")
        times.operation = "MULTIPLY"
        tree.links.new(separate.outputs[0], times.inputs[0])
        times.inputs[1].default_value = 12.0
        return mix(tree, "MIX", times.outputs[0], PLAIN, colour)
    return chain


def light_output(target):
    def add(tree):
        plain = tree.nodes.new("ShaderNodeBsdfPrincipled")
        plain.inputs["Base Color"].default_value = PLAIN
        out_ = tree.nodes.new("ShaderNodeOutputLight")
        out_.target = target
        tree.links.new(plain.outputs["BSDF"], out_.inputs["Surface"])
    return add


crate("crate")
crate("crate_light_output_cycles", extra=light_output("CYCLES"))
crate("crate_exclusion_floored", lambda tree, colour: exclusion(tree, colour))
crate("crate_exclusion_kept", lambda tree, colour: exclusion(tree, colour, b=0.0))  # 2 x 0.49 x image shows
crate("crate_black_hue", hue_switch((0.0, -1.0, -2.0)))
crate("crate_red_hue", hue_switch((1.0, 0.9, 0.9)))  # hue 0: factor 0, the plain colour
crate("crate_yellowish_hue", hue_switch((1.0, 1.0, 0.5)))  # hue 1/6: factor 2, clamped 1: the image


# -- the kept scene: a prop and a sun -----------------------------------------------------------
def kept(name, extra=None):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 3
    obj = box("SM_Box", (0.5, 0.5, 0.5), (0.0, 0.0, 0.25))
    obj.data.name = "SM_Box"
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    sun.data.energy = 3.0
    scene.collection.objects.link(sun)
    if extra is not None:
        extra(obj, sun)
    save(name)


def line_style_driver(path, expression, modifier="Dist"):
    def add(obj, sun):
        style = bpy.data.linestyles.new("Lines")
        style.color_modifiers.new(modifier, "DISTANCE_FROM_OBJECT").target = sun if "data" in path else obj
        bpy.context.scene.view_layers[0].freestyle_settings.linesets.new("Lines").linestyle = style
        driver = style.animation_data_create().drivers.new(path).driver
        driver.type, driver.expression = "SCRIPTED", expression
    return add


def line_style_own_driver(obj, sun):
    """A line style's driver on its own modifier's influence: it writes into no other data-block."""
    line_style_driver('color_modifiers["Dist"].influence', "0.5")(obj, sun)


def off_in_viewports(obj, sun):
    obj.hide_viewport = True


def collection_off(obj, sun):
    props = bpy.data.collections.new("Props")
    bpy.context.scene.collection.children.link(props)
    props.objects.link(obj)
    bpy.context.scene.collection.objects.unlink(obj)
    props.hide_viewport = True


def bounds(obj, sun):
    obj.display_type = "BOUNDS"


def moved_to_collection(obj, sun):
    props = bpy.data.collections.new("Props")
    bpy.context.scene.collection.children.link(props)
    props.objects.link(obj)
    bpy.context.scene.collection.objects.unlink(obj)


def old_mesh_from_packed_library(obj, sun):
    old = bpy.data.meshes.new("Cube.001")
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=50.0)
    bm.to_mesh(old)
    bm.free()
    bpy.data.libraries.write(str(out / "import_meshes.blend"), {old}, fake_user=True)
    bpy.data.meshes.remove(old)
    with bpy.data.libraries.load(str(out / "import_meshes.blend"), link=True) as (src, dst):
        dst.meshes = ["Cube.001"]
    bpy.context.scene["import_Cube_001"] = dst.meshes[0]


kept("prop")
kept("prop_sun_killed", line_style_driver('color_modifiers["Dist"].target.data.energy', "0.0 if frame > 1 else 3.0"))
kept("prop_hidden_by_line_style", line_style_driver('color_modifiers["Dist"].target.hide_render', "frame > 1"))
# a modifier named with a trailing backslash (escaped in the path): Blender's own path reading
kept("prop_sun_killed_escaped", line_style_driver('color_modifiers["Dist\\\\"].target.data.energy',
                                                  "0.0 if frame > 1 else 3.0", modifier="Dist\\"))
kept("prop_line_style_own_driver", line_style_own_driver)
kept("prop_off_in_viewports", off_in_viewports)
kept("prop_collection_off", collection_off)
kept("prop_as_bounds", bounds)
kept("prop_in_collection", moved_to_collection)
kept("prop_packed_leftover", old_mesh_from_packed_library)
'''

SWEEP_CASES = {"APART": ("solids_apart", {"objects": ["Bar"], "others": ["Box"], "tolerance": 0.005,
                                          "frame_start": 1, "frame_end": 3})}
TEXTURE_CASES = {"TEX": ("texture_influence", {"object": "Crate", "image": "Grid", "input": "Base Color",
                                               "min_influence": 0.5})}
KEPT_CASES = {"KEPT": ("scene_unchanged", {"frame": 1, "allow_changed": {
                  "SM_Box": ["collections"], "render": ["collections", "layer_collections"]}}),
              "COUNT": ("object_count", {"type": "MESH", "min": 1, "max": 1, "whole_file": True})}
# (task, delivery) -> {criterion: what its detail names}
EXPECTED = {
    ("sweep", "bar_beside"): {},
    ("sweep", "bar_jumps_away"): {},
    ("sweep", "bar_jumps"): {"APART": "Bar runs 0."},
    ("sweep", "bar_stepped"): {"APART": "Bar runs 0."},
    ("sweep", "arm_short_way"): {"APART": "Bar runs 0."},
    ("sweep", "arm_long_way"): {"APART": "Bar runs 0."},
    ("texture", "crate"): {},
    ("texture", "crate_exclusion_kept"): {},
    ("texture", "crate_yellowish_hue"): {},
    ("texture", "crate_light_output_cycles"): {"TEX": "under the CYCLES"},
    ("texture", "crate_exclusion_floored"): {"TEX": "influence"},
    ("texture", "crate_black_hue"): {"TEX": "does not reach"},
    ("texture", "crate_red_hue"): {"TEX": "does not reach"},
    ("kept", "prop"): {},
    ("kept", "prop_line_style_own_driver"): {},
    ("kept", "prop_in_collection"): {},
    ("kept", "prop_sun_killed"): {"KEPT": "'color_modifiers[\"Dist\"].target.data.energy' -> 'Sun'"},
    ("kept", "prop_hidden_by_line_style"): {"KEPT": "-> 'SM_Box'"},
    ("kept", "prop_sun_killed_escaped"): {"KEPT": "-> 'Sun'"},
    ("kept", "prop_off_in_viewports"): {"KEPT": "SM_Box (viewport"},
    ("kept", "prop_collection_off"): {"KEPT": "SM_Box (viewport"},
    ("kept", "prop_as_bounds"): {"KEPT": "SM_Box (viewport"},
    # refused whole since red team 25 (data from another file), before the count sees the second mesh
    ("kept", "prop_packed_leftover"): {"COUNT": "data from another .blend file", "KEPT": "data from another .blend file"},
}
NEW_OPERATORS = ("part_jumps_through_between_frames", "light_output_over_material", "texture_floored_by_exclusion",
                 "texture_switched_by_black_hue", "foreign_path_hides_object", "kept_objects_off_in_viewports")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam19")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    tasks = {"sweep": write_rule_task(tmp / "sweep", SWEEP_CASES, "redteam19-sweep", start_mode="from_scratch"),
             "texture": write_rule_task(tmp / "texture", TEXTURE_CASES, "redteam19-texture", start_mode="from_scratch"),
             "kept": write_rule_task(tmp / "kept", KEPT_CASES, "redteam19-kept")}
    run_bpy(bpy_procs.VERIFIERS / "scene_snapshot.py", "--blend", tmp / "prop.blend",
            "--out", tmp / "kept" / "start_scene.json")
    return {"tmp": tmp, **tasks}


@pytest.mark.parametrize(("task", "delivery"), sorted(EXPECTED))
def test_between_frames_outputs_edge_cases_foreign_paths_and_the_opened_file_are_measured(scenes, task, delivery):
    task_path, rubric = scenes[task]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task_path, rubric,
                         scenes["tmp"] / f"report-{task}-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[(task, delivery)], delivery)


def test_the_new_operators_apply_and_are_killed(scenes):
    kills = {}
    for task, blend, operators, killed_by in (
            ("sweep", "bar_beside", ["part_jumps_through_between_frames"], {"APART"}),
            ("texture", "crate", ["light_output_over_material", "texture_floored_by_exclusion",
                                  "texture_switched_by_black_hue"], {"TEX"}),
            ("kept", "prop", ["foreign_path_hides_object", "kept_objects_off_in_viewports"], {"KEPT"})):
        task_path, rubric = scenes[task]
        with local_probe() as probe:
            rows = probe.mutate(scenes["tmp"] / f"{blend}.blend", task_path, rubric, None, operators=operators)
        assert_operators_killed(rows, {op: killed_by for op in operators})
        kills.update({row["operator"]: row for row in rows})
    assert sorted(kills) == sorted(NEW_OPERATORS)


def test_the_new_operators_are_listed():
    assert set(NEW_OPERATORS) <= set(OPERATOR_NAMES)
