"""Red team 27 (issue 33), in real Blender: what the renderers do not read, a part's thinnest
shell between frames, and more of how the opened file shows the scene.

* crate-texture passed with its image through RGB Curves whose mapping's White Level (the
  compositor's, which neither renderer applies to a shader) the grader applied: ``_n_curve_rgb``
  reads the curves alone.
* robot-carry passed with the gripper passing through a table's 5 cm leg between two frames: the
  table's thickness was its whole box's (0.6 m), so no subframe was looked at; ``_motions`` takes
  a rigid part's thinnest shell now.  And with the box's Disable in Viewports keyed on for the
  swing: the ``viewport`` key holds the F-curves and drivers on editor settings.
* asset-hygiene passed with the props saved with every face hidden, a clipping region (Alt+B)
  around an empty corner of the opened view, every view's selection filter leaving meshes out,
  and a colour attribute of the background's colour drawn Flat: the ``viewport`` key holds the
  hidden elements and the selection filter, ``opened_view_hides`` the clipping region and a
  colour attribute's colours.
* render-setup passed with a colour grid as the shot camera's background image, drawn in front:
  the ``viewport`` key holds a camera's viewport display.
* Entering a paint mode links Blender's own brushes: those are not data from another file.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import (
    BPY_SCENE_HELPERS, assert_operators_killed, assert_refused_as_expected, local_probe, probe_local, run_bpy,
    write_rule_task,
)
from verifiers import bpy_procs
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = BPY_SCENE_HELPERS + r'''
from mathutils import Vector


def prop(name, extra=None):
    """SM_Box, a camera looking at it, a sun: the kept scene."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 3
    box("SM_Box", (0.4, 0.4, 0.4), (0.0, 0.0, 0.2))
    cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
    scene.collection.objects.link(cam)
    cam.location = (0.0, -4.0, 0.2)
    cam.rotation_euler = (Vector((0.0, 0.0, 0.2)) - cam.location).to_track_quat("-Z", "Y").to_euler()
    scene.camera = cam
    scene.collection.objects.link(bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN")))
    if extra is not None:
        extra(scene)
    save(name)


def faces_hidden(scene):
    mesh = scene.objects["SM_Box"].data
    mesh.polygons.foreach_set("hide", [True] * len(mesh.polygons))


def hidden_while_playing(scene):
    box_ = scene.objects["SM_Box"]
    box_.keyframe_insert("hide_viewport", frame=1)
    box_.hide_viewport = True
    box_.keyframe_insert("hide_viewport", frame=2)
    box_.hide_viewport = False


def background_grid(scene):
    cam = scene.objects["Cam"].data
    grid = bpy.data.images.new("Grid", 64, 36)
    grid.generated_type = "COLOR_GRID"
    cam.show_background_images = True
    bg = cam.background_images.new()
    bg.image, bg.display_depth = grid, "FRONT"


def select_filter(scene):
    for space in views():
        space.show_object_select_mesh = False


def clip_region(scene):
    for space in views():
        region = space.region_3d
        region.use_clip_planes = True
        # six planes keeping only a 10 cm box 50 m away (each keeps dot(n, p) + d >= 0)
        region.clip_planes = [(1, 0, 0, -50.0), (-1, 0, 0, 50.1), (0, 1, 0, -50.0), (0, -1, 0, 50.1),
                              (0, 0, 1, -50.0), (0, 0, -1, 50.1)]


def attribute_flat(colour):
    def extra(scene):
        mesh = scene.objects["SM_Box"].data
        attribute = mesh.color_attributes.new("Col", "FLOAT_COLOR", "POINT")
        for value in attribute.data:
            value.color = (*colour, 1.0)
        mesh.color_attributes.active_color = attribute
        for space in views():
            shading = space.shading
            shading.type, shading.light, shading.color_type = "SOLID", "FLAT", "VERTEX"
            shading.background_type, shading.background_color = "VIEWPORT", (0.05, 0.05, 0.05)
            shading.show_object_outline = shading.show_cavity = shading.show_shadows = False
    return extra


def painted(scene):
    bpy.context.view_layer.objects.active = scene.objects["SM_Box"]
    bpy.ops.object.mode_set(mode="WEIGHT_PAINT")
    bpy.ops.object.mode_set(mode="OBJECT")


def curves(white_level=None):
    def extra(tree, tex):
        node = tree.nodes.new("ShaderNodeRGBCurve")
        if white_level is not None:
            node.mapping.extend = "EXTRAPOLATED"
            for channel, base in zip(range(3), (0.30, 0.18, 0.08)):
                points = node.mapping.curves[channel].points
                points[0].location, points[-1].location = (0.0, base), (1.0, base + 0.05)
            node.mapping.white_level = (white_level,) * 3
            node.mapping.update()
        tree.links.new(tex.outputs["Color"], node.inputs["Color"])
        tree.links.new(node.outputs["Color"], tree.nodes["Principled BSDF"].inputs["Base Color"])
    return extra


def textured(extra=None, name="textured"):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    crate = box("Crate", (0.5, 0.5, 0.5), (0.0, 0.0, 0.25), uv=True)
    image = bpy.data.images.new("Paint", 64, 64)
    image.generated_type = "COLOR_GRID"
    mat = bpy.data.materials.new("Wood")
    mat.use_nodes = True
    tree = mat.node_tree
    tex = tree.nodes.new("ShaderNodeTexImage")
    tex.image = image
    uv = tree.nodes.new("ShaderNodeUVMap")
    uv.uv_map = "CrateUV"
    tree.links.new(uv.outputs["UV"], tex.inputs["Vector"])
    tree.links.new(tex.outputs["Color"], tree.nodes["Principled BSDF"].inputs["Base Color"])
    crate.data.materials.append(mat)
    if extra is not None:
        extra(tree, tex)
    save(name)


def table_and_bar(name, through_leg):
    """A table (a 5 cm top and four 5 cm legs, one object: its box 0.8 m tall) and a 10 cm bar
    that jumps 0.4 m a frame past a leg: through it between frames 1 and 2 (``through_leg``) or
    well clear of it."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 3
    bm = bmesh.new()
    for size, centre in [((1.2, 0.8, 0.05), (0.0, 0.0, 0.775))] + [
            ((0.05, 0.05, 0.75), (x, y, 0.375)) for x in (-0.55, 0.55) for y in (-0.35, 0.35)]:
        made = bmesh.ops.create_cube(bm, size=1.0)
        bmesh.ops.scale(bm, vec=size, verts=made["verts"])
        bmesh.ops.translate(bm, vec=centre, verts=made["verts"])
    mesh = bpy.data.meshes.new("Table")
    bm.to_mesh(mesh)
    bm.free()
    scene.collection.objects.link(bpy.data.objects.new("Table", mesh))
    bar = box("Bar", (0.1, 0.1, 0.1), (0.0, 0.0, 0.0))
    y = -0.35 if through_leg else -1.0
    for frame, x in ((1, 0.35), (2, 0.75), (3, 0.75)):
        bar.location = (x, y, 0.3)
        bar.keyframe_insert("location", frame=frame)
    save(name)


prop("prop")
prop("prop_faces_hidden", faces_hidden)
prop("prop_hidden_while_playing", hidden_while_playing)
prop("prop_camera_background_grid", background_grid)
prop("prop_views_select_no_meshes", select_filter)
prop("prop_views_clip_region", clip_region)
prop("prop_attribute_as_background", attribute_flat((0.05, 0.05, 0.05)))
prop("prop_attribute_distinct", attribute_flat((0.8, 0.3, 0.1)))
prop("prop_painted", painted)
textured()
textured(curves(), "textured_curves_identity")
textured(curves(0.05), "textured_curves_white_level")
table_and_bar("bar_past_leg", through_leg=False)
table_and_bar("bar_through_leg", through_leg=True)
'''

KEPT_CASES = {"KEPT": ("scene_unchanged", {"frame": 1})}
SIZE_CASES = {"SIZE": ("dimensions", {"object": "SM_Box", "expected": [0.4, 0.4, 0.4], "tolerance": 0.005})}
TEXTURE_CASES = {"TEX": ("texture_influence", {"material": "Wood", "image": "Paint", "uv_map": "CrateUV",
                                               "min_coverage": 0.1})}
APART_CASES = {"APART": ("solids_apart", {"objects": ["Bar"], "others": ["Table"], "tolerance": 0.005,
                                          "frame_start": 1, "frame_end": 3})}
# (task, delivery) -> {criterion: what its detail names}
EXPECTED = {
    ("kept", "prop"): {},
    ("kept", "prop_faces_hidden"): {"KEPT": "SM_Box (viewport"},
    ("kept", "prop_hidden_while_playing"): {"KEPT": "SM_Box (animation, viewport"},
    ("kept", "prop_camera_background_grid"): {"KEPT": "Cam (viewport"},
    ("kept", "prop_views_select_no_meshes"): {"KEPT": "SM_Box (viewport"},
    ("kept", "prop_painted"): {},
    ("size", "prop"): {},
    ("size", "prop_views_clip_region"): {"SIZE": "outside the clipping region (Alt+B)"},
    ("size", "prop_attribute_as_background"): {"SIZE": "background's own colour"},
    ("size", "prop_attribute_distinct"): {},
    ("texture", "textured"): {},
    ("texture", "textured_curves_identity"): {},
    ("texture", "textured_curves_white_level"): {"TEX": "influence 0.050"},
    ("apart", "bar_past_leg"): {},
    ("apart", "bar_through_leg"): {"APART": "Bar runs"},
}
NEW_OPERATORS = ("texture_squeezed_by_curve_levels", "kept_object_hidden_in_viewport_animated",
                 "kept_mesh_faces_hidden", "kept_camera_background_image")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam27")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    tasks = {"kept": write_rule_task(tmp / "kept", KEPT_CASES, "redteam27-kept"),
             "size": write_rule_task(tmp / "size", SIZE_CASES, "redteam27-size", start_mode="from_scratch"),
             "texture": write_rule_task(tmp / "texture", TEXTURE_CASES, "redteam27-texture", start_mode="from_scratch"),
             "apart": write_rule_task(tmp / "apart", APART_CASES, "redteam27-apart", start_mode="from_scratch")}
    run_bpy(bpy_procs.VERIFIERS / "scene_snapshot.py", "--blend", tmp / "prop.blend",
            "--out", tmp / "kept" / "start_scene.json")
    return {"tmp": tmp, **tasks}


@pytest.mark.parametrize(("task", "delivery"), sorted(EXPECTED))
def test_unrendered_levels_thin_shells_between_frames_and_the_opened_views_are_measured(scenes, task, delivery):
    task_path, rubric = scenes[task]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task_path, rubric,
                         scenes["tmp"] / f"report-{task}-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[(task, delivery)], delivery)


def test_the_new_operators_apply_and_are_killed(scenes):
    kills = {}
    for task, blend, operators, killed_by in (
            ("kept", "prop", ["kept_object_hidden_in_viewport_animated", "kept_mesh_faces_hidden",
                              "kept_camera_background_image"], {"KEPT"}),
            ("texture", "textured", ["texture_squeezed_by_curve_levels"], {"TEX"})):
        task_path, rubric = scenes[task]
        with local_probe() as probe:
            rows = probe.mutate(scenes["tmp"] / f"{blend}.blend", task_path, rubric, None, operators=operators)
        assert_operators_killed(rows, {op: killed_by for op in operators})
        kills.update({row["operator"]: row for row in rows})
    assert sorted(kills) == sorted(NEW_OPERATORS)


def test_the_new_operators_are_listed():
    assert set(NEW_OPERATORS) <= set(OPERATOR_NAMES)
