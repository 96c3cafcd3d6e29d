"""Red team 23 (issue 33), in real Blender: an object's editor settings, the scene's own settings,
the 3D views the file opens on, an image read a whole tile away that jumps, a pad that does not
touch what it holds, a driver reading the screen, and an indexed path into another data-block.

* asset-hygiene passed with its props unselectable, locked and coloured magenta at alpha 0 (the
  snapshot's ``viewport`` key holds the object's editor settings now), with gravity turned up
  (``scene_settings``), and with every 3D view at X-Ray alpha 0 (``OPENED_VIEW`` reads each 3D
  view's X-Ray, clip range, local view and colour source).
* robot-carry passed with the pad hovering 2.8 cm over the box it "held" (``supported_throughout``:
  the pad's surface must touch the held object, ``PAD_CONTACT``), with the box dropped whenever
  Play runs (``ShowsWhatItCannotMeasure``: a driver reading the user interface), with the preview
  range ending before the set-down (``scene_settings``) and with every 3D view clipped.
* crate-texture passed with its image read at UV + a whole number of tiles changing every 15
  microns (``texture_influence``: one tile offset per face).
* A Normal Map node turning a part's shading normal into its faces was named, not failed: it is
  evaluated now (tangent, object and world space) for ``normals_follow_faces``.
* render-setup's indexed path ``...target.data.color[0]`` through a line style into the sun was
  not seen as writing into another data-block (``_written_id``).

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

def prop(name, extra=None):
    """SM_Box on a stand, a sun: the kept scene."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 3
    box("SM_Box", (0.4, 0.4, 0.4), (0.0, 0.0, 0.2))
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    scene.collection.objects.link(sun)
    if extra is not None:
        extra(scene)
    save(name)


def unselectable(scene):
    scene.objects["SM_Box"].hide_select = True


def locked(scene):
    scene.objects["SM_Box"].lock_location = (True, True, True)


def coloured(scene):
    scene.objects["SM_Box"].color = (1.0, 0.0, 1.0, 0.0)


def gravity_up(scene):
    scene.gravity = (0.0, 0.0, 9.81)


def preview_cut(scene):
    scene.use_preview_range = True
    scene.frame_preview_start, scene.frame_preview_end = 1, 2


def xray_clear(scene):
    for space in views():
        space.shading.type = "SOLID"
        space.shading.show_xray, space.shading.xray_alpha = True, 0.0


def clipped(scene):
    for space in views():
        space.clip_start, space.clip_end = 0.0001, 0.001


def object_colour_clear(scene):
    scene.objects["SM_Box"].color = (0.8, 0.8, 0.8, 0.0)
    for space in views():
        space.shading.type, space.shading.color_type = "SOLID", "OBJECT"


def playback_driver(scene):
    driver = scene.objects["SM_Box"].driver_add("location", 2).driver
    var = driver.variables.new()
    var.name, var.type = "p", "SINGLE_PROP"
    var.targets[0].id_type, var.targets[0].id = "SCREEN", bpy.data.screens[0]
    var.targets[0].data_path = "is_animation_playing"
    driver.expression = "0.2 - p"


def indexed_path(scene):
    style = bpy.data.linestyles.new("Lines")
    style.color_modifiers.new("Dist", "DISTANCE_FROM_OBJECT").target = scene.objects["Sun"]
    scene.view_layers[0].freestyle_settings.linesets.new("Lines").linestyle = style
    action = bpy.data.actions.new("StyleAction")
    style.animation_data_create().action = action
    curve = action.fcurve_ensure_for_datablock(style, 'color_modifiers["Dist"].target.data.color[0]')
    curve.keyframe_points.insert(1, 1.0)


def textured(extra=None, name="textured"):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 3
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
        extra(tree, tex, uv)
    save(name)


def tile_jumps(tree, tex, uv):
    coords = tree.nodes.new("ShaderNodeTexCoord")
    dot = tree.nodes.new("ShaderNodeVectorMath")
    dot.operation = "DOT_PRODUCT"
    dot.inputs[1].default_value = (1000.0, 1300.0, 1700.0)
    tree.links.new(coords.outputs["Object"], dot.inputs[0])
    fract, scale, floor = (tree.nodes.new("ShaderNodeMath") for _ in range(3))
    fract.operation, scale.operation, floor.operation = "FRACT", "MULTIPLY", "FLOOR"
    scale.inputs[1].default_value = 64.0
    tree.links.new(dot.outputs["Value"], fract.inputs[0])
    tree.links.new(fract.outputs[0], scale.inputs[0])
    tree.links.new(scale.outputs[0], floor.inputs[0])
    shift = tree.nodes.new("ShaderNodeCombineXYZ")
    tree.links.new(floor.outputs[0], shift.inputs["X"])
    tree.links.new(floor.outputs[0], shift.inputs["Y"])
    add = tree.nodes.new("ShaderNodeVectorMath")
    add.operation = "ADD"
    tree.links.new(uv.outputs["UV"], add.inputs[0])
    tree.links.new(shift.outputs[0], add.inputs[1])
    tree.links.new(add.outputs["Vector"], tex.inputs["Vector"])


def whole_tile(tree, tex, uv):
    """The same image one tile over on every face: the layout painted, read as it is."""
    add = tree.nodes.new("ShaderNodeVectorMath")
    add.operation = "ADD"
    add.inputs[1].default_value = (1.0, 2.0, 0.0)
    tree.links.new(uv.outputs["UV"], add.inputs[0])
    tree.links.new(add.outputs["Vector"], tex.inputs["Vector"])


def normal_map(colour, space="TANGENT"):
    def extra(tree, tex, uv):
        bump = tree.nodes.new("ShaderNodeNormalMap")
        bump.space, bump.uv_map = space, "CrateUV"
        rgb = tree.nodes.new("ShaderNodeRGB")
        rgb.outputs[0].default_value = (*colour, 1.0)
        tree.links.new(rgb.outputs[0], bump.inputs["Color"])
        tree.links.new(bump.outputs["Normal"], tree.nodes["Principled BSDF"].inputs["Normal"])
    return extra


def carry(gap=0.0, name="carry", faceless=False):
    """A pad lowers onto a crate on a table at frame 1, lifts it 0.2 m over frames 2-5 with the
    crate ``gap`` below the pad's face (``faceless``: the pad's mesh has no faces)."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 5
    box("Table", (1.0, 1.0, 0.1), (0.0, 0.0, 0.45))
    crate = box("Crate", (0.3, 0.3, 0.3), (0.0, 0.0, 0.65))
    pad = box("Pad", (0.1, 0.1, 0.1), (0.0, 0.0, 0.85))
    if faceless:
        bm = bmesh.new()
        bm.from_mesh(pad.data)
        bmesh.ops.delete(bm, geom=list(bm.faces), context="FACES_ONLY")
        bm.to_mesh(pad.data)
        bm.free()
    tip = bpy.data.objects.new("Tip", None)
    scene.collection.objects.link(tip)
    tip.parent, tip.location = pad, (0.0, 0.0, -0.05)
    for f in range(1, 6):
        lift = 0.0 if f == 1 else 0.2
        pad.location.z = 0.85 + lift
        crate.location.z = 0.65 + lift - (gap if f > 1 else 0.0)
        pad.keyframe_insert("location", index=2, frame=f)
        crate.keyframe_insert("location", index=2, frame=f)
    save(name)


prop("prop")
for extra in (unselectable, locked, coloured, gravity_up, preview_cut, xray_clear, clipped, object_colour_clear,
              playback_driver, indexed_path):
    prop(f"prop_{extra.__name__}", extra)
textured()
textured(tile_jumps, "textured_tile_jumps")
textured(whole_tile, "textured_whole_tile")
textured(normal_map((0.6, 0.45, 0.9)), "textured_normal_map_tilted")
textured(normal_map((0.5, 0.5, 0.0)), "textured_normal_map_inward")
textured(normal_map((0.5, 0.5, 0.0), "OBJECT"), "textured_normal_map_object_down")
carry()
carry(0.025, "carry_hovering")
carry(name="carry_faceless_pad", faceless=True)
'''

KEPT_CASES = {"KEPT": ("scene_unchanged", {"frame": 1})}
SIZE_CASES = {"SIZE": ("dimensions", {"object": "SM_Box", "expected": [0.4, 0.4, 0.4], "tolerance": 0.005})}
TEXTURE_CASES = {"TEX": ("texture_influence", {"material": "Wood", "image": "Paint", "uv_map": "CrateUV",
                                               "min_coverage": 0.1}),
                 "NORMALS": ("normals_follow_faces", {"objects": ["Crate"], "max_angle": 90, "max_share": 0.0})}
CARRY_CASES = {"HELD": ("supported_throughout", {
    "object": "Crate", "supports": ["Table"], "carrier": "Tip", "anchor": "top_center", "rest_tolerance": 0.01,
    "carrier_tolerance": 0.03, "min_carried_frames": 2, "pad_from": "Pad", "frame_start": 1, "frame_end": 5})}
MOTION = "cannot stand for"
# (task, delivery) -> {criterion: what its detail names}
EXPECTED = {
    ("kept", "prop"): {},
    ("kept", "prop_unselectable"): {"KEPT": "SM_Box (viewport"},
    ("kept", "prop_locked"): {"KEPT": "SM_Box (viewport"},
    ("kept", "prop_coloured"): {"KEPT": "SM_Box (viewport"},
    ("kept", "prop_gravity_up"): {"KEPT": "render scene_settings"},
    ("kept", "prop_preview_cut"): {"KEPT": "render scene_settings"},
    ("kept", "prop_indexed_path"): {"KEPT": "animation writing into another data-block"},
    ("kept", "prop_playback_driver"): {"KEPT": MOTION},
    ("size", "prop"): {},
    ("size", "prop_xray_clear"): {"SIZE": "X-Ray alpha 0"},
    ("size", "prop_clipped"): {"SIZE": "outside the clip range"},
    ("size", "prop_object_colour_clear"): {"SIZE": "colours by object"},
    ("size", "prop_playback_driver"): {"SIZE": MOTION},
    ("texture", "textured"): {},
    ("texture", "textured_whole_tile"): {},
    # red team 26: an image read through a stepping node is Unknown before its tiles are counted
    ("texture", "textured_tile_jumps"): {"TEX": "read at a coordinate with steps"},
    ("texture", "textured_normal_map_tilted"): {},
    ("texture", "textured_normal_map_inward"): {"NORMALS": "Crate"},
    ("texture", "textured_normal_map_object_down"): {"NORMALS": "Crate"},
    ("carry", "carry"): {},
    ("carry", "carry_hovering"): {"HELD": "the pad off the object's face"},
    ("carry", "carry_faceless_pad"): {"HELD": "the pad off the object's face"},
}
NEW_OPERATORS = ("kept_objects_editor_locked", "scene_gravity_and_preview_changed", "texture_read_jumps_tiles",
                 "held_object_hangs_below_pad", "part_driven_by_playback", "normal_map_turned_inward")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam23")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    tasks = {"kept": write_rule_task(tmp / "kept", KEPT_CASES, "redteam23-kept"),
             "size": write_rule_task(tmp / "size", SIZE_CASES, "redteam23-size", start_mode="from_scratch"),
             "texture": write_rule_task(tmp / "texture", TEXTURE_CASES, "redteam23-texture", start_mode="from_scratch"),
             "carry": write_rule_task(tmp / "carry", CARRY_CASES, "redteam23-carry", start_mode="from_scratch")}
    run_bpy(bpy_procs.VERIFIERS / "scene_snapshot.py", "--blend", tmp / "prop.blend",
            "--out", tmp / "kept" / "start_scene.json")
    return {"tmp": tmp, **tasks}


@pytest.mark.parametrize(("task", "delivery"), sorted(EXPECTED))
def test_editor_state_scene_settings_opened_views_tile_jumps_pad_contact_and_ui_drivers_are_measured(
        scenes, task, delivery):
    task_path, rubric = scenes[task]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task_path, rubric,
                         scenes["tmp"] / f"report-{task}-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[(task, delivery)], delivery)


def test_the_new_operators_apply_and_are_killed(scenes):
    kills = {}
    for task, blend, operators, killed_by in (
            ("kept", "prop", ["kept_objects_editor_locked", "scene_gravity_and_preview_changed",
                              "part_driven_by_playback"], {"KEPT"}),
            ("texture", "textured", ["texture_read_jumps_tiles"], {"TEX"}),
            ("texture", "textured", ["normal_map_turned_inward"], {"NORMALS"}),
            ("carry", "carry", ["held_object_hangs_below_pad"], {"HELD"})):
        task_path, rubric = scenes[task]
        with local_probe() as probe:
            rows = probe.mutate(scenes["tmp"] / f"{blend}.blend", task_path, rubric, None, operators=operators)
        assert_operators_killed(rows, {op: killed_by for op in operators})
        kills.update({row["operator"]: row for row in rows})
    assert sorted(kills) == sorted(NEW_OPERATORS)


def test_the_new_operators_are_listed():
    assert set(NEW_OPERATORS) <= set(OPERATOR_NAMES)
