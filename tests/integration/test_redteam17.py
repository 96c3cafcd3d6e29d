"""Red team 17 (issue 33), in real Blender: between two frames, every channel in view, and what
else the file delivers.

* robot-carry passed with the forearm beside the box at frame 6 and on its other side at frame
  7: no frame showed the two overlapping.  ``solids_apart`` now evaluates subframes where two
  parts move further between two frames than half their summed thickness (``_sweep``).
* crate-texture passed with the texture shown only on the faces the camera never sees (boosted
  1.3x there), and with only the red channel, boosted 1.6x: ``texture_influence`` caps each
  slope at 1, needs each colour channel and the area the scene camera sees (``camera_seen``).
* asset-hygiene passed with copies of the props kept in another scene as curves carrying a
  Geometry Nodes mesh and as empties instancing them (``of_type``: for MESH, what draws as a
  mesh), and with an OBJ collection exporter at scale 100 (``scene_unchanged`` compares the
  collections' exporters).

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import (
    local_probe, assert_operators_killed, assert_refused_as_expected, probe_local, run_bpy, write_rule_task,
)
from verifiers import bpy_procs
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = r'''
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


# -- between frames: a 10 cm bar beside a 25 cm box, keyed along y -----------------------------
def sweep(name, ys, interpolation="BEZIER"):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    box("Box", (0.25, 0.25, 0.25), (0.0, 0.0, 0.5))
    bar = box("Bar", (0.1, 0.1, 0.1), (0.0, ys[0], 0.5))
    for frame, y in enumerate(ys, start=1):
        bar.location.y = y
        bar.keyframe_insert("location", index=1, frame=frame)
    anim = bar.animation_data
    for fc in anim_utils.action_get_channelbag_for_slot(anim.action, anim.action_slot).fcurves:
        for key in fc.keyframe_points:
            key.interpolation = interpolation
    save(name)


sweep("bar_beside", [0.4, 0.38, 0.36])
sweep("bar_through", [0.4, -0.4, -0.4])
# Constant keys: no motion between in the animation, but the frames show it on both sides of
# the box -- passed through (red team 19; tests/integration/test_redteam19.py)
sweep("bar_jumps", [0.4, -0.4, -0.4], interpolation="CONSTANT")


# -- the texture: a crate in front of a camera ---------------------------------------------------
def crate(name, chain=None):
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
    obj.data.materials.append(mat)
    save(name)


def math(tree, op, a, b):
    node = tree.nodes.new("ShaderNodeMath")
    node.operation = op
    for i, v in enumerate((a, b)):
        if isinstance(v, bpy.types.NodeSocket):
            tree.links.new(v, node.inputs[i])
        else:
            node.inputs[i].default_value = v
    return node.outputs[0]


def brighter(tree, colour, value=1.3):
    hsv = tree.nodes.new("ShaderNodeHueSaturation")
    hsv.inputs["Value"].default_value = value
    tree.links.new(colour, hsv.inputs["Color"])
    return hsv.outputs["Color"]


def faces_away_only(tree, colour):
    """The image (1.3x) where the surface faces away from the camera, plain brown elsewhere."""
    view = bpy.data.objects["Cam"].matrix_world.to_3x3() @ Vector((0.0, 0.0, -1.0))
    geo = tree.nodes.new("ShaderNodeNewGeometry")
    dot = tree.nodes.new("ShaderNodeVectorMath")
    dot.operation = "DOT_PRODUCT"
    tree.links.new(geo.outputs["Normal"], dot.inputs[0])
    dot.inputs[1].default_value = tuple(view)
    mix = tree.nodes.new("ShaderNodeMix")
    mix.data_type = "RGBA"
    inputs = {s.identifier: s for s in mix.inputs}
    inputs["A_Color"].default_value = (0.45, 0.3, 0.15, 1.0)
    tree.links.new(math(tree, "GREATER_THAN", dot.outputs["Value"], 0.0), inputs["Factor_Float"])
    tree.links.new(brighter(tree, colour), inputs["B_Color"])
    return next(s for s in mix.outputs if s.identifier == "Result_Color")


def red_only(tree, colour):
    split, join = tree.nodes.new("ShaderNodeSeparateColor"), tree.nodes.new("ShaderNodeCombineColor")
    tree.links.new(colour, split.inputs["Color"])
    tree.links.new(math(tree, "MULTIPLY", split.outputs["Red"], 1.6), join.inputs["Red"])
    join.inputs["Green"].default_value, join.inputs["Blue"].default_value = 0.3, 0.15
    return join.outputs["Color"]


crate("crate")
crate("crate_brightened", lambda tree, colour: brighter(tree, colour, 1.6))  # capped at 1: still shows
crate("crate_faces_away", faces_away_only)
crate("crate_red_only", red_only)


# -- the file: one prop, and what another scene keeps of it ---------------------------------------
def prop(name, extra=None):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    obj = box("SM_Box", (0.5, 0.5, 0.5), (0.0, 0.0, 0.25))
    obj.data.name = "SM_Box"
    if extra is not None:
        extra(obj)
    save(name)


def curve_copy(obj):
    kept = bpy.data.scenes.new("Import")
    holder = bpy.data.objects.new("Cube", bpy.data.curves.new("Cube", "CURVE"))
    kept.collection.objects.link(holder)
    tree = bpy.data.node_groups.new("copy", "GeometryNodeTree")
    tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    tree.nodes.new("NodeGroupInput")
    info = tree.nodes.new("GeometryNodeObjectInfo")
    info.transform_space = "RELATIVE"
    info.inputs["Object"].default_value = obj
    real = tree.nodes.new("GeometryNodeRealizeInstances")
    tree.links.new(info.outputs["Geometry"], real.inputs["Geometry"])
    tree.links.new(real.outputs["Geometry"], tree.nodes.new("NodeGroupOutput").inputs[0])
    holder.modifiers.new("Copy", "NODES").node_group = tree


def instanced_copy(obj):
    kit = bpy.data.collections.new("Kit")
    kit.objects.link(obj)
    kept = bpy.data.scenes.new("Import")
    empty = bpy.data.objects.new("Cube", None)
    empty.instance_type, empty.instance_collection = "COLLECTION", kit
    kept.collection.objects.link(empty)


def plain_path(obj):
    """A curve with no geometry in another scene: it draws nothing, it is no mesh."""
    kept = bpy.data.scenes.new("Paths")
    kept.collection.objects.link(bpy.data.objects.new("Path", bpy.data.curves.new("Path", "CURVE")))
    bpy.data.objects["Path"].data.dimensions = "3D"


def exporter(obj, scale=100.0):
    coll = bpy.context.scene.collection
    with bpy.context.temp_override(collection=coll):
        bpy.ops.collection.exporter_add(name="IO_FH_obj")
    coll.exporters[0].export_properties.global_scale = scale


prop("prop")
prop("prop_curve_copy", curve_copy)
prop("prop_instanced_copy", instanced_copy)
prop("prop_exporter", exporter)
'''

SWEEP_CASES = {"APART": ("solids_apart", {"objects": ["Bar"], "others": ["Box"], "tolerance": 0.005,
                                          "frame_start": 1, "frame_end": 3})}
TEXTURE_CASES = {"TEX": ("texture_influence", {"object": "Crate", "image": "Grid", "input": "Base Color",
                                               "min_influence": 0.5})}
FILE_CASES = {"COUNT": ("object_count", {"type": "MESH", "min": 1, "max": 1, "whole_file": True}),
              "NAMES": ("names_match", {"type": "MESH", "pattern": "SM_[A-Za-z]+", "data_same_name": True,
                                        "min": 1, "whole_file": True})}
KEPT_CASES = {"KEPT": ("scene_unchanged", {"frame": 1})}
# (task, delivery) -> {criterion: what its detail names}
EXPECTED = {
    ("sweep", "bar_beside"): {},
    ("sweep", "bar_jumps"): {"APART": "Bar runs 0."},
    ("sweep", "bar_through"): {"APART": "Bar runs 0."},
    ("texture", "crate"): {},
    ("texture", "crate_brightened"): {},
    ("texture", "crate_faces_away"): {"TEX": "where the camera sees the part"},
    ("texture", "crate_red_only"): {"TEX": "its weakest colour channel 0.000"},
    ("file", "prop"): {},
    ("file", "prop_exporter"): {},
    ("file", "prop_curve_copy"): {"COUNT": "2 MESH in the file", "NAMES": "<scene: Import>/Cube"},
    ("file", "prop_instanced_copy"): {"COUNT": "2 MESH in the file", "NAMES": "<scene: Import>/Cube"},
    ("kept", "prop"): {},
    # another scene: object_count and names_match read the whole file; since red team 31 the
    # render snapshot holds the file's other scenes too, so scene_unchanged sees one added
    ("kept", "prop_curve_copy"): {"KEPT": "render other_scenes"},
    ("kept", "prop_exporter"): {"KEPT": "render collection_exporters"},
}
NEW_OPERATORS = ("part_passes_through_between_frames", "texture_on_faces_away", "texture_red_channel_only",
                 "leftover_scene_mesh_curves", "leftover_scene_instances", "collection_exporter_rescaled")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam17")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    tasks = {"sweep": write_rule_task(tmp / "sweep", SWEEP_CASES, "redteam17-sweep", start_mode="from_scratch"),
             "texture": write_rule_task(tmp / "texture", TEXTURE_CASES, "redteam17-texture", start_mode="from_scratch"),
             "file": write_rule_task(tmp / "file", FILE_CASES, "redteam17-file", start_mode="from_scratch"),
             "kept": write_rule_task(tmp / "kept", KEPT_CASES, "redteam17-kept")}
    run_bpy(bpy_procs.VERIFIERS / "scene_snapshot.py", "--blend", tmp / "prop.blend",
            "--out", tmp / "kept" / "start_scene.json")
    return {"tmp": tmp, **tasks}


@pytest.mark.parametrize(("task", "delivery"), sorted(EXPECTED))
def test_between_frames_every_channel_in_view_and_the_rest_of_the_file_are_measured(scenes, task, delivery):
    task_path, rubric = scenes[task]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task_path, rubric,
                         scenes["tmp"] / f"report-{task}-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[(task, delivery)], delivery)


def test_a_pass_between_frames_is_found_on_the_subframes_only_where_parts_move_far(scenes):
    """The bar moving 2 cm a frame is not looked at between frames; the one crossing the box is."""
    task_path, rubric = scenes["sweep"]
    for delivery, looked in (("bar_beside", 0), ("bar_through", 1)):
        report = probe_local(scenes["tmp"] / f"{delivery}.blend", task_path, rubric,
                             scenes["tmp"] / f"report-subframes-{delivery}.json")
        measured = {c["id"]: c for c in report["criteria"]}["APART"]["measured"]
        assert (measured["subframes_sampled"] > 0) == bool(looked), (delivery, measured)


def test_the_new_operators_apply_and_are_killed(scenes):
    kills = {}
    for task, blend, operators, killed_by in (
            ("sweep", "bar_beside", ["part_passes_through_between_frames"], {"APART"}),
            ("texture", "crate", ["texture_on_faces_away", "texture_red_channel_only"], {"TEX"}),
            ("file", "prop", ["leftover_scene_mesh_curves", "leftover_scene_instances"], {"COUNT", "NAMES"}),
            ("kept", "prop", ["collection_exporter_rescaled"], {"KEPT"})):
        task_path, rubric = scenes[task]
        with local_probe() as probe:
            rows = probe.mutate(scenes["tmp"] / f"{blend}.blend", task_path, rubric, None, operators=operators)
        assert_operators_killed(rows, {op: killed_by for op in operators})
        kills.update({row["operator"]: row for row in rows})
    assert sorted(kills) == sorted(NEW_OPERATORS)


def test_the_new_operators_are_listed():
    assert set(NEW_OPERATORS) <= set(OPERATOR_NAMES)
