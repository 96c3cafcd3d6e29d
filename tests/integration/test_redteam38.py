"""Red team 38 (issue 33), in real Blender: more legs, a cabinet, a part that changes over the
frames, a speck of another material, a light ticked Holdout.

table-model passed with six more full-height legs under its top (named braces) and with a solid
block between its legs: every part was the reference's, every other object inside the outline.
``under_stays_open``: under the top no other piece runs over half of the height from the floor,
and other geometry fills at most half of any vertical line there (1 cm voxels). An apron,
stretchers and corner braces pass; more legs, a block, one flat panel (no thickness) and posts
stacked from pieces 1.5 cm apart do not.

fence-array passed with its pickets' colour keyed over the frames, and with every part mixed into
an emission of the world's grey from frame 10: the spec says nothing may move, change shape or
change material over the frames. ``unchanged_over_frames``: each part looks on every graded frame
as on the first (placement, evaluated mesh, its own values, its materials' node trees as
evaluated). A camera that turns round the table passes; a keyed colour and a leg that slides
3 mm do not.

mug-material passed with one face of the foot (0.05 % of the body) in a second, glowing
material: ``material_on_faces`` with ``every_face`` (the bundled seeds whose spec says "every
face") fails any other material on any face, whatever its share.

product-lighting passed with a 2 kW point light and a sun ticked Holdout: holdout cuts surfaces
out of the picture, a light shines all the same, so a light so flagged (or in a holdout or
indirect-only collection) counts among the render's objects (``render_visible_names``).

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import BPY_SCENE_HELPERS, assert_refused_as_expected, build_scenes, probe_local

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

PARTS = ["Tabletop", "Leg.FL", "Leg.FR", "Leg.BL", "Leg.BR"]

MAKE = BPY_SCENE_HELPERS + r'''
import math


def table(name, extra=None):
    """A 1.20 x 0.80 x 0.75 m table in Wood over frames 1-40; ``extra(scene, wood)`` adds to it."""
    scene = fresh()
    scene.frame_start, scene.frame_end = 1, 40
    wood = bpy.data.materials.new("Wood")
    wood.use_nodes = True
    parts = [box("Tabletop", (1.2, 0.8, 0.04), (0.0, 0.0, 0.73))]
    for tag, x, y in (("FL", -0.55, -0.35), ("FR", 0.55, -0.35), ("BL", -0.55, 0.35), ("BR", 0.55, 0.35)):
        parts.append(box(f"Leg.{tag}", (0.06, 0.06, 0.71), (x, y, 0.355)))
    for part in parts:
        part.data.materials.append(wood)
    if extra is not None:
        extra(scene, wood)
    save(name)


def add_on(name, size, location, wood):
    box(name, size, location).data.materials.append(wood)


def apron_and_stretchers(scene, wood):
    for side in (-1, 1):
        add_on(f"Apron.X{side}", (1.04, 0.02, 0.1), (0.0, side * 0.36, 0.66), wood)
        add_on(f"Apron.Y{side}", (0.02, 0.64, 0.1), (side * 0.56, 0.0, 0.66), wood)
        add_on(f"Stretcher.{side}", (0.02, 0.64, 0.03), (side * 0.55, 0.0, 0.12), wood)
        add_on(f"Brace.{side}", (0.08, 0.08, 0.15), (side * 0.48, -0.3, 0.535), wood)
    add_on("Stretcher.H", (1.04, 0.03, 0.03), (0.0, 0.0, 0.12), wood)


def six_more_legs(scene, wood):
    for i, (x, y) in enumerate([(-0.2, -0.31), (0.2, -0.31), (-0.2, 0.31), (0.2, 0.31), (0.0, -0.31), (0.0, 0.31)]):
        add_on(f"Brace.{i}", (0.06, 0.06, 0.71), (x, y, 0.355), wood)


def cabinet(scene, wood):
    add_on("Apron", (1.02, 0.62, 0.71), (0.0, 0.0, 0.355), wood)


def panel(scene, wood):
    """one plane, no thickness, closing the front between the legs"""
    mesh = bpy.data.meshes.new("Panel")
    mesh.from_pydata([(-0.52, -0.3, 0.0), (0.52, -0.3, 0.0), (0.52, -0.3, 0.71), (-0.52, -0.3, 0.71)], [], [(0, 1, 2, 3)])
    mesh.materials.append(wood)
    scene.collection.objects.link(bpy.data.objects.new("Panel", mesh))


def stacked_posts(scene, wood):
    """three posts, each of three 22 cm pieces 1.5 cm apart: no piece spans half the height"""
    for i, x in enumerate((-0.2, 0.0, 0.2)):
        for k in range(3):
            add_on(f"Post.{i}.{k}", (0.05, 0.05, 0.22), (x, -0.31, 0.11 + k * 0.235), wood)


def turntable_camera(scene, wood):
    cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
    scene.collection.objects.link(cam)
    scene.camera = cam
    pivot = bpy.data.objects.new("Pivot", None)
    scene.collection.objects.link(pivot)
    cam.parent = pivot
    cam.location = (0.0, -4.0, 1.0)
    cam.rotation_euler = (math.radians(80), 0.0, 0.0)
    for frame, turn in ((1, 0.0), (40, math.pi)):
        pivot.rotation_euler.z = turn
        pivot.keyframe_insert("rotation_euler", index=2, frame=frame)


def colour_keyed(scene, wood):
    colour = wood.node_tree.nodes["Principled BSDF"].inputs["Base Color"]
    for frame, value in ((1, (0.5, 0.3, 0.1, 1.0)), (20, (1.0, 0.0, 1.0, 1.0))):
        colour.default_value = value
        colour.keyframe_insert("default_value", frame=frame)


def leg_slides(scene, wood):
    leg = bpy.data.objects["Leg.FL"]
    for frame, x in ((1, -0.55), (30, -0.547)):
        leg.location.x = x
        leg.keyframe_insert("location", index=0, frame=frame)


def foot_face_glows(scene, wood):
    glow = bpy.data.materials.new("Speck")
    glow.use_nodes = True
    glow.node_tree.nodes["Principled BSDF"].inputs["Emission Strength"].default_value = 20.0
    leg = bpy.data.objects["Leg.FL"].data
    leg.materials.append(glow)
    leg.polygons[0].material_index = 1


def light(name, kind, energy, scene):
    obj = bpy.data.objects.new(name, bpy.data.lights.new(name, kind))
    obj.data.energy = energy
    obj.location = (0.3, -1.0, 1.5)
    return obj


def holdout_light(scene, wood):
    lamp = light("Held", "POINT", 3000.0, scene)
    scene.collection.objects.link(lamp)
    lamp.is_holdout = True


def light_in_holdout_collection(scene, wood):
    coll = bpy.data.collections.new("Matte")
    scene.collection.children.link(coll)
    coll.objects.link(light("Sky", "SUN", 500.0, scene))
    bpy.context.view_layer.layer_collection.children["Matte"].holdout = True


def weak_light(scene, wood):
    scene.collection.objects.link(light("Fill", "POINT", 50.0, scene))


table("table")
table("apron_and_stretchers", apron_and_stretchers)
table("six_more_legs", six_more_legs)
table("cabinet", cabinet)
table("panel", panel)
table("stacked_posts", stacked_posts)
table("turntable_camera", turntable_camera)
table("colour_keyed", colour_keyed)
table("leg_slides", leg_slides)
table("foot_face_glows", foot_face_glows)
table("holdout_light", holdout_light)
table("light_in_holdout_collection", light_in_holdout_collection)
table("weak_light", weak_light)
'''

CASES = {
    "OPEN": ("under_stays_open", {"under": "Tabletop", "parts": PARTS, "frame": 1}),
    "STILL": ("unchanged_over_frames", {"objects": PARTS}),
    "WOOD": ("material_on_faces", {"objects": PARTS, "material": "Wood", "every_face": True}),
    "LIGHTS": ("light_power", {"max_power": 100.0}),
}
EXPECTED = {
    "table": {},
    "apron_and_stretchers": {},
    "six_more_legs": {"OPEN": "a piece runs from z 0.00 to 0.71"},
    "cabinet": {"OPEN": "a piece runs from z 0.00 to 0.71"},
    "panel": {"OPEN": "a piece runs from z 0.00 to 0.71"},
    "stacked_posts": {"OPEN": "other geometry fills"},
    "turntable_camera": {},
    "colour_keyed": {"STILL": "Leg.BL from frame 2"},
    "leg_slides": {"STILL": "Leg.FL from frame 2"},
    "foot_face_glows": {"WOOD": "faces use another material too: Speck"},
    "holdout_light": {"LIGHTS": "Held"},
    "light_in_holdout_collection": {"LIGHTS": "Sky"},
    "weak_light": {},
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    return build_scenes(tmp_path_factory.mktemp("redteam38"), MAKE, CASES, "redteam38", "from_scratch")


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_more_legs_a_changing_part_a_speck_and_a_holdout_light_are_refused(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                         scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)
    opened = next(c for c in report["criteria"] if c["id"] == "OPEN")
    if delivery == "apron_and_stretchers":  # the add-ons are measured, not missed
        assert 0 < opened["measured"]["span"] <= 0.5 and 0 < opened["measured"]["fill"] <= 0.5, opened
    still = next(c for c in report["criteria"] if c["id"] == "STILL")
    assert (still["evidence"]["time_dependent"] is None) is (delivery not in (
        "turntable_camera", "colour_keyed", "leg_slides")), (delivery, still["evidence"])
