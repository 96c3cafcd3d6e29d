"""Red team 39 (issue 33), in real Blender: where Texture Paint paints, and one pick-and-place move.

crate-texture passed with a decoy Image Texture node holding the paint canvas while another node
was the active one (Blender moves the active node and leaves the canvas on the decoy), and with
Texture Paint switched to Single Image mode on a decoy: every stroke lands in an image no render
reads. ``image_texture``'s ``paint_slot`` now reads the target as Blender does
(``probes_materials.paint_target``): the scene's Single Image canvas, or the material's active
paint slot after Blender's own refresh on entering Texture Paint. The image node made active, and
Single Image mode on the right image, pass.

robot-carry passed with the box set down on the target, taken again, carried back over the start
and brought back: ``supported_throughout``'s ``max_pickups`` counts the times the box goes from
resting to carried. One move passes; a box set down and taken again fails.

asset-hygiene passed with an old import scale left as custom properties on every prop's mesh, and
with the mesh's symmetry, remesh size and texture space changed: a kept mesh's attribute digest
takes the mesh data's own settings and custom properties now (``SNAPSHOT_VERSION`` 17).

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import (BPY_SCENE_HELPERS, assert_refused_as_expected, build_scenes, probe_local, run_bpy,
                               write_rule_task)
from verifiers import bpy_procs

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = BPY_SCENE_HELPERS + r'''
def decoy(mat):
    node = mat.node_tree.nodes.new("ShaderNodeTexImage")
    node.image = bpy.data.images.new("Decoy", 64, 64)
    return node


def decoy_active(scene, obj, mat):
    mat.node_tree.nodes.active = decoy(mat)


def decoy_keeps_canvas(scene, obj, mat):
    mat.node_tree.nodes.active = decoy(mat)
    mat.node_tree.nodes.active = mat.node_tree.nodes["Principled BSDF"]


def single_image(image):
    def extra(scene, obj, mat):
        paint = scene.tool_settings.image_paint
        paint.mode = "IMAGE"
        paint.canvas = bpy.data.images[image] if image in bpy.data.images else decoy(mat).image
    return extra


def carry(name, legs):
    """Box (0.25 m) from TableA (x -1) to TableB (x +1), both tops at z 0.75, and an empty Tip:
    ``legs`` is a list of (frames, box x to, box z to, held) moves from where the last left it; the
    tip is on the box's top centre while held, 30 cm above it otherwise."""
    scene = fresh()
    box("TableA", (0.6, 0.6, 0.75), (-1.0, 0.0, 0.375))
    box("TableB", (0.6, 0.6, 0.75), (1.0, 0.0, 0.375))
    crate = box("Box", (0.25, 0.25, 0.25), (-1.0, 0.0, 0.875))
    tip = bpy.data.objects.new("Tip", None)
    scene.collection.objects.link(tip)
    frame, x, z = 1, -1.0, 0.875
    keys = [(frame, x, z, False)]
    for frames, x_to, z_to, held in legs:
        for k in range(1, frames + 1):
            keys.append((frame + k, x + (x_to - x) * k / frames, z + (z_to - z) * k / frames, held))
        frame, x, z = frame + frames, x_to, z_to
    scene.frame_start, scene.frame_end = 1, frame
    for f, bx, bz, held in keys:
        crate.location = (bx, 0.0, bz)
        tip.location = (bx, 0.0, bz + 0.125 + (0.0 if held else 0.3))
        crate.keyframe_insert("location", frame=f)
        tip.keyframe_insert("location", frame=f)
    save(name)


def mesh_tagged(scene, obj):
    obj.data["unit_scale"] = 0.01
    obj.data["up_axis"] = "Y"


def mesh_mirrored(scene, obj):
    obj.data.use_mirror_x = True
    obj.data.remesh_voxel_size = 5.0


TO_B = [(5, -1.0, 0.875, False), (2, -1.0, 0.875, True), (10, -1.0, 1.175, True), (20, 1.0, 1.175, True),
        (10, 1.0, 0.875, True)]
prop("prop")
prop("prop_mesh_tagged", mesh_tagged)
prop("prop_mesh_mirrored", mesh_mirrored)
painted("painted")
painted("decoy_active", decoy_active)
painted("decoy_keeps_canvas", decoy_keeps_canvas)
painted("single_image_right", single_image("Img"))
painted("single_image_decoy", single_image("Decoy"))
carry("one_move", TO_B + [(5, 1.0, 0.875, False)])
carry("taken_again", TO_B + [(10, 1.0, 1.175, True), (20, -1.0, 1.175, True), (20, 1.0, 1.175, True),
                             (10, 1.0, 0.875, True), (5, 1.0, 0.875, False)])
'''

CASES = {
    "PAINT": ("image_texture", {"material": "Paint", "image": "Img", "paint_slot": True}),
    "CARRY": ("supported_throughout", {"object": "Box", "supports": ["TableA", "TableB"], "carrier": "Tip",
                                       "rest_tolerance": 0.01, "carrier_tolerance": 0.03, "max_step": 0.25,
                                       "min_carried_frames": 10, "max_pickups": 1,
                                       "frame_start": 1, "frame_end": 102}),
}
EXPECTED = {
    "painted": ("PAINT", None),
    "decoy_active": ("PAINT", "off: paint_slot"),
    "decoy_keeps_canvas": ("PAINT", "off: paint_slot"),
    "single_image_right": ("PAINT", None),
    "single_image_decoy": ("PAINT", "off: paint_slot"),
    "one_move": ("CARRY", None),
    "taken_again": ("CARRY", "picked up 2 times"),
}


KEPT_EXPECTED = {"prop": {}, "prop_mesh_tagged": {"KEPT": "SM_Box (attributes)"},
                 "prop_mesh_mirrored": {"KEPT": "SM_Box (attributes"}}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam39")
    built = build_scenes(tmp, MAKE, {"PAINT": CASES["PAINT"]}, "redteam39-paint", "from_scratch")
    built["carry"] = write_rule_task(tmp / "carry-task", {"CARRY": CASES["CARRY"]}, "redteam39-carry",
                                     start_mode="from_scratch")
    built["kept"] = write_rule_task(tmp / "kept", {"KEPT": ("scene_unchanged", {"frame": 1})}, "redteam39-kept")
    run_bpy(bpy_procs.VERIFIERS / "scene_snapshot.py", "--blend", tmp / "prop.blend",
            "--out", tmp / "kept" / "start_scene.json")
    return built


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_the_painted_image_and_one_pick_and_place_move(scenes, delivery):
    cid, why = EXPECTED[delivery]
    task, rubric = (scenes["task"], scenes["rubric"]) if cid == "PAINT" else scenes["carry"]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task, rubric, scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, {cid: why} if why else {}, delivery)
    measured = report["criteria"][0]["measured"]
    if cid == "PAINT":
        assert measured["paint_mode"] == ("single image" if "single" in delivery else "material slot"), measured
    else:
        assert measured["pickups"] == (2 if delivery == "taken_again" else 1), measured


@pytest.mark.parametrize("delivery", sorted(KEPT_EXPECTED))
def test_a_kept_meshs_own_settings_and_custom_properties_are_kept(scenes, delivery):
    task, rubric = scenes["kept"]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task, rubric, scenes["tmp"] / f"report-kept-{delivery}.json")
    assert_refused_as_expected(report, KEPT_EXPECTED[delivery], delivery)
