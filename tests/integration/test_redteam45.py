"""Red team 45 (issue 33), in real Blender: Texture Paint's settings, a box turning under a still
pad, a helper armature's bone shapes, an action nothing plays, and custom normals added.

crate-texture passed with Texture Paint's settings keeping the strokes from landing where they are
made: the Face Selection mask on with no face selected, a unified strength of 0, X symmetry (each
stroke mirrored onto another plank), Occlude off (strokes through to the hidden faces) and a normal
falloff of 0 degrees. ``paint_target`` names each (``probes_materials._strokes_held_back``); the
mask with every face selected, and a strength of 0.5, pass.

robot-carry passed with the box turning under a still pad, 0.58 degrees a frame, each step within
the slip tolerance of both the table and the pad: ``supported_throughout``'s stretches both go on
while both hold the box, and the turn adds up against both.

robot-carry passed with a helper armature (an allowed new type) whose bone drew the box solid as
its custom shape: ``scene_unchanged``'s ``allow_new`` judges an armature by the types its bones
draw solid (``bone_shape_types``); a bone drawing it as wire passes.

asset-hygiene passed with the old import transform keyed in an action nothing plays (an FBX
export's take for every prop) and with custom normals equal to the shading added to every prop: a
kept object's ``takes`` and the presence of its shading layers count (``SNAPSHOT_VERSION`` 18).

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import BPY_SCENE_HELPERS, assert_refused_as_expected, build_case_groups, probe_case

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = BPY_SCENE_HELPERS + r'''
import math


def paint_setting(change):
    def extra(scene, obj, mat):
        change(scene.tool_settings.image_paint, obj)
    return extra


def face_mask(selected):
    def change(paint, obj):
        obj.data.use_paint_mask = True
        obj.data.polygons.foreach_set("select", [selected] * len(obj.data.polygons))
    return change


def strength(value):
    def change(paint, obj):
        paint.unified_paint_settings.use_unified_strength = True
        paint.unified_paint_settings.strength = value
    return change


def symmetry(paint, obj):
    paint.use_symmetry_x = True


def occlude_off(paint, obj):
    paint.use_occlude = False


def falloff_zero(paint, obj):
    paint.use_normal_falloff, paint.normal_angle = True, 0


def hold(name, turn_deg):
    """A 0.2 m box on a table, a tip (an empty) coming down onto its top by frame 3 and staying
    there to frame 20; from frame 4 the box turns ``turn_deg`` a frame about its vertical axis."""
    scene = fresh()
    scene.frame_start, scene.frame_end = 1, 20
    box("Table", (1.0, 1.0, 0.75), (0.0, 0.0, 0.375))
    crate = box("Box", (0.2, 0.2, 0.2), (0.0, 0.0, 0.85))
    tip = bpy.data.objects.new("Tip", None)
    scene.collection.objects.link(tip)
    for f in range(1, 21):
        tip.location = (0.0, 0.0, {1: 1.3, 2: 1.1}.get(f, 0.95))
        crate.rotation_euler = (0.0, 0.0, math.radians(turn_deg * max(0, f - 3)))
        tip.keyframe_insert("location", frame=f)
        crate.keyframe_insert("rotation_euler", frame=f)
    save(name)


def helper_armature(wire):
    def extra(scene, obj):
        data = bpy.data.armatures.new("Rig")
        rig = bpy.data.objects.new("Rig", data)
        scene.collection.objects.link(rig)
        bpy.context.view_layer.objects.active = rig
        bpy.ops.object.mode_set(mode="EDIT")
        data.edit_bones.new("Bone").tail = (0.0, 0.0, 1.0)
        bpy.ops.object.mode_set(mode="OBJECT")
        rig.pose.bones["Bone"].custom_shape = obj
        data.bones["Bone"].show_wire = wire
    return extra


def orphan_take(scene, obj):
    action = bpy.data.actions.new("ImportTake")
    action.use_fake_user = True
    slot = action.slots.new(id_type="OBJECT", name="Take")
    bag = action.layers.new("Layer").strips.new(type="KEYFRAME").channelbag(slot, ensure=True)
    bag.fcurves.new("scale", index=0).keyframe_points.insert(1, 0.01)


def custom_normals(scene, obj):
    obj.data.normals_split_custom_set([tuple(n.vector) for n in obj.data.corner_normals])


painted("painted")
painted("painted_mask_all_selected", paint_setting(face_mask(True)))
painted("painted_mask_none_selected", paint_setting(face_mask(False)))
painted("painted_strength_half", paint_setting(strength(0.5)))
painted("painted_strength_zero", paint_setting(strength(0.0)))
painted("painted_symmetry", paint_setting(symmetry))
painted("painted_occlude_off", paint_setting(occlude_off))
painted("painted_falloff_zero", paint_setting(falloff_zero))
hold("hold_still", 0.0)
hold("hold_turning", 0.58)
prop("prop")
prop("prop_rig_wire", helper_armature(True))
prop("prop_rig_solid", helper_armature(False))
prop("prop_orphan_take", orphan_take)
prop("prop_custom_normals", custom_normals)
'''

GROUPS = {
    "paint": {"PAINT": ("image_texture", {"material": "Paint", "image": "Img", "paint_slot": True})},
    "hold": {"HOLD": ("supported_throughout", {"object": "Box", "supports": ["Table"], "carrier": "Tip",
                                               "anchor": "top_center", "rest_tolerance": 0.01,
                                               "carrier_tolerance": 0.03, "max_step": 0.25, "slip_tolerance": 0.002,
                                               "snap_tolerance": 0.03, "frame_start": 1, "frame_end": 20,
                                               "frame_step": 1})},
    "kept": {"KEPT": ("scene_unchanged", {"frame": 1, "allow_new": {"types": ["EMPTY", "ARMATURE"]}})},
}
EXPECTED = {  # delivery -> (group, {criterion: what its failing detail says})
    "painted": ("paint", {}),
    "painted_mask_all_selected": ("paint", {}),
    "painted_mask_none_selected": ("paint", {"PAINT": "face selection mask on SM_Box (0 of 6 faces selected)"}),
    "painted_strength_half": ("paint", {}),
    "painted_strength_zero": ("paint", {"PAINT": "brush strength 0 (unified)"}),
    "painted_symmetry": ("paint", {"PAINT": "symmetry X"}),
    "painted_occlude_off": ("paint", {"PAINT": "Occlude off"}),
    "painted_falloff_zero": ("paint", {"PAINT": "normal falloff at 0 degrees"}),
    "hold_still": ("hold", {}),
    "hold_turning": ("hold", {"HOLD": "unsupported frame"}),
    "prop": ("kept", {}),
    "prop_rig_wire": ("kept", {}),
    "prop_rig_solid": ("kept", {"KEPT": "new Rig"}),
    "prop_orphan_take": ("kept", {"KEPT": "SM_Box (takes)"}),
    "prop_custom_normals": ("kept", {"KEPT": "SM_Box (attributes)"}),
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    return build_case_groups(tmp_path_factory.mktemp("redteam45"), MAKE, GROUPS, "redteam45", "continue",
                             start_scene=("prop", "kept"))


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_paint_settings_a_turn_under_the_pad_bone_shapes_orphan_takes_and_custom_normals(scenes, delivery):
    group, refused = EXPECTED[delivery]
    report = probe_case(scenes, group, delivery)
    assert_refused_as_expected(report, refused, delivery)
    if delivery == "prop_rig_solid":
        [new] = [e for e in report["criteria"][0]["evidence"]["changes"] if e.get("kind") == "new"]
        assert "custom shapes solid" in new["why"], new
