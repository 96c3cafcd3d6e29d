"""Issue 33's red-team items left open, closed, in real Blender.

* product-lighting (red team 18): the Fill at its stated 15 W, in place and aimed, its Spread
  narrowed to 10 degrees: Cycles keeps an area light's power in the narrower beam, so the fill
  put more on the speaker than the 60 W key and reversed the rig.  ``light_settings`` takes
  ``dimmer_than`` {light, on}: the light puts less on the target than the other one does
  (``probes_scene.light_on``, an area light's Spread included).
* mug-material (red team 17): the gold's Specular Tint black -- grey, as the tint rule read --
  on a metal is the colour of its edges (Blender's F82 tint): the rim's edges rendered dark
  brown, CIEDE2000 29 from the gold there.  The shader check bounds a metal's edge tint:
  Metallic x (1 - the tint's smallest channel) at most ``max_metal_edge_tint`` (0.1).
* robot-carry (red team 15): links a joint joins overlap at their hinge by design, so
  ``solids_apart`` never paired them, and an elbow folded until the forearm sank into the upper
  arm passed.  ``solids_apart`` takes ``hinges``: each joined pair is measured like any other
  pair except within ``within`` of the joint's pivot (the child link's origin), between frames
  too, as far as the links turn relative to each other.
* table-model (red team, the slotted top): a 10 cm slot from the top's front edge to 2 cm short
  of the back.  Every section across it is 91.7 % of its own outline, within REQ-PARTS' 90 %,
  and the box is the full top's (since red team 36 a section's outline is the same plane's
  section of the piece's convex hull: a plane inside the slot, along it, meets only the 2 cm
  strip behind it, 2.5 %, and REQ-PARTS refuses it too).  The brief asks for "a 4 cm solid top", a rectangular slab:
  ``shape_measures``' ``fill`` (the volume the faces enclose over the part's own box) holds the
  top at 95 % or more; rounded corners and eased edges keep it, a slot or a groove does not.
  Built as a prism, the slotted top's caps are concave 8-gons, and their fan triangles reached
  across the slot: ``solid_parts`` read its sections as 2.6 % filled.  A face its fan does not
  cover is now filled as Blender fills it (``probes_solid.fan_indices``): as its triangulated
  twin measures.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import math

import pytest

from tests.probe_cases import (
    assert_operators_killed, assert_refused_as_expected, build_scenes, local_probe, probe_local,
)
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = r'''
import sys
from math import cos, radians, sin
from pathlib import Path

import bpy
from mathutils import Vector

out = Path(sys.argv[-1])
CENTRE = Vector((0.0, 0.0, 1.0))


def light(name, kind, watts, where, **settings):
    obj = bpy.data.objects.new(name, bpy.data.lights.new(name, kind))
    obj.data.energy = watts
    for key, value in settings.items():
        setattr(obj.data, key, value)
    obj.location = where
    obj.rotation_euler = (CENTRE - Vector(where)).to_track_quat("-Z", "Y").to_euler()
    bpy.context.scene.collection.objects.link(obj)
    return obj


def principled(name, colour, metallic, tint):
    mat = bpy.data.materials.new(name)
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (*colour, 1.0)
    bsdf.inputs["Metallic"].default_value = metallic
    bsdf.inputs["Specular Tint"].default_value = (tint, tint, tint, 1.0)
    return mat


def box(name, size, origin_at_base=True):
    bpy.ops.mesh.primitive_cube_add(size=1.0)
    obj = bpy.context.object
    obj.name = name
    obj.scale = size
    bpy.ops.object.transform_apply(scale=True)
    if origin_at_base:  # the link's origin at the middle of its base, as a robot's links have it
        for v in obj.data.vertices:
            v.co.z += size[2] / 2
    return obj


def arm(keys):
    """An upper arm (0.12 x 0.12 x 0.9) and a forearm (0.1 x 0.1 x 0.8) hinged at its top, the
    elbow keyed about Y at ``keys`` {frame: degrees}."""
    upper = box("Upper", (0.12, 0.12, 0.9))
    upper.location = (3.0, 0.0, 0.0)
    fore = box("Fore", (0.1, 0.1, 0.8))
    fore.parent, fore.location = upper, (0.0, 0.0, 0.9)
    for frame, angle in keys.items():
        fore.rotation_euler.y = radians(angle)
        fore.keyframe_insert("rotation_euler", index=1, frame=frame)


def prism(name, outline, depth, axis="Z", where=(5.0, 5.0, 0.0)):
    """A closed prism: ``outline`` (counter-clockwise [(u, v)]) extruded ``depth`` along ``axis``
    (Z: the outline in x, y; Y: in x, z), placed at ``where``."""
    n = len(outline)
    if axis == "Z":
        verts = [(u, v, 0.0) for u, v in outline] + [(u, v, depth) for u, v in outline]
    else:  # the outline in x, z seen from the front (-Y), extruded towards +Y
        verts = [(u, depth, v) for u, v in outline] + [(u, 0.0, v) for u, v in outline]
    faces = [tuple(range(n - 1, -1, -1)), tuple(range(n, 2 * n))]
    faces += [(i, (i + 1) % n, n + (i + 1) % n, n + i) for i in range(n)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    obj = bpy.data.objects.new(name, mesh)
    obj.location = where
    bpy.context.scene.collection.objects.link(obj)
    return obj


def rounded(w, d, r, segments=8):
    """A w x d rectangle's outline with its corners rounded to radius r."""
    pts = []
    for cx, cy, start in ((w / 2 - r, -d / 2 + r, -90), (w / 2 - r, d / 2 - r, 0), (-w / 2 + r, d / 2 - r, 90),
                          (-w / 2 + r, -d / 2 + r, 180)):
        pts += [(cx + r * cos(radians(start + 90 * k / segments)), cy + r * sin(radians(start + 90 * k / segments)))
                for k in range(segments + 1)]
    return pts


W, D, T = 1.2, 0.8, 0.04
TOPS = {
    "plain": lambda: prism("Top", [(-W / 2, -D / 2), (W / 2, -D / 2), (W / 2, D / 2), (-W / 2, D / 2)], T),
    # the red team's: 10 cm wide, from the front edge to 2 cm short of the back (fill 0.919)
    "slotted": lambda: prism("Top", [(-W / 2, -D / 2), (-0.05, -D / 2), (-0.05, D / 2 - 0.02), (0.05, D / 2 - 0.02),
                                     (0.05, -D / 2), (W / 2, -D / 2), (W / 2, D / 2), (-W / 2, D / 2)], T),
    # a groove 10 cm wide and 3 cm deep under it, front to back (fill 0.9375)
    "grooved": lambda: prism("Top", [(-W / 2, 0.0), (-0.05, 0.0), (-0.05, 0.03), (0.05, 0.03), (0.05, 0.0),
                                     (W / 2, 0.0), (W / 2, T), (-W / 2, T)], D, axis="Y"),
    "rounded": lambda: prism("Top", rounded(W, D, 0.05), T),  # corners of 5 cm radius (fill 0.998)
}


def eased(obj):
    """Every edge eased: a 1.5 cm round (a Bevel modifier, as a render evaluates it; fill ~0.99)."""
    bevel = obj.modifiers.new("Ease", "BEVEL")
    bevel.width, bevel.segments, bevel.limit_method = 0.015, 4, "NONE"


def scene(name, fill_spread=180.0, fill_at=(1.6, -1.4, 1.2), gold_tint=1.0, glaze_tint=1.0, elbow=90.0, keys=None,
          top="plain"):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.mesh.primitive_cube_add(size=0.2, location=CENTRE)
    bpy.context.object.name = "Product"
    bpy.context.object.data.materials.append(principled("Gold", (0.66, 0.43, 0.04), 1.0, gold_tint))
    bpy.ops.mesh.primitive_cube_add(size=0.2, location=CENTRE + Vector((0.0, 0.0, -0.3)))
    bpy.context.object.name = "Stand"
    bpy.context.object.data.materials.append(principled("Glaze", (0.02, 0.16, 0.18), 0.0, glaze_tint))
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 3
    arm(keys or {1: 60.0, 3: elbow})
    light("Key", "AREA", 60.0, (-1.0, -1.0, 1.8), size=0.6)  # 1.62 m: 60 / (pi 2.64) = 7.2
    light("Fill", "AREA", 15.0, fill_at, size=1.0, spread=radians(fill_spread))
    if top == "eased":
        eased(TOPS["plain"]())
    elif top == "slotted_triangulated":  # the same shape, its caps cut into triangles
        TOPS["slotted"]().modifiers.new("Tris", "TRIANGULATE")
    else:
        TOPS[top]()
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


scene("rig")  # the fill at 2.14 m: 15 / (pi 4.56) = 1.05, 7x under the key
scene("fill_spread_90", fill_spread=90.0)  # 4.66x (Cycles' gain, red team 44): still 1.5x under the key
scene("fill_spread_10", fill_spread=10.0)  # 394x: 412, 59x the key
scene("fill_close", fill_at=(0.45, -0.45, 1.1))  # 0.64 m: 11.5, over the key (no Spread needed)
scene("gold_tint_black", gold_tint=0.0)  # 1 x (1 - 0): the edges dark
scene("gold_tint_0_8", gold_tint=0.8)  # 0.2: the edges dE 4.5 from the gold
scene("gold_tint_0_95", gold_tint=0.95)  # 0.05: kept
scene("glaze_tint_black", glaze_tint=0.0)  # a dielectric: its grey tint only scales the reflection
scene("elbow_120", elbow=120.0)  # 60 degrees apart: the corners meet within 12 cm of the elbow
scene("elbow_150", elbow=150.0)  # 30 degrees apart: the forearm's side sunk into the upper arm to ~22 cm
scene("elbow_180", elbow=180.0)  # folded straight down through it
scene("elbow_swings_through", keys={1: 60.0, 2: 300.0, 3: 300.0})  # through the fold between frames 1 and 2
scene("top_slotted", top="slotted")
scene("top_grooved", top="grooved")
scene("top_rounded", top="rounded")
scene("top_eased", top="eased")
scene("top_slotted_triangulated", top="slotted_triangulated")
'''

CASES = {
    "FILL": ("light_settings", {"object": "Fill", "type": "AREA", "energy": 15,
                                "dimmer_than": {"light": "Key", "on": "Product"}}),
    "GOLD": ("surface_shader", {"material": "Gold", "shader": "BSDF_PRINCIPLED", "base_color": [0.66, 0.43, 0.04],
                                "max_metallic": 1.0}),
    "GLAZE": ("surface_shader", {"material": "Glaze", "shader": "BSDF_PRINCIPLED", "base_color": [0.02, 0.16, 0.18]}),
    "HINGE": ("solids_apart", {"objects": ["Upper"], "others": ["Product"], "tolerance": 0.005,
                               "hinges": [{"links": ["Upper", "Fore"], "within": 0.15}],
                               "frame_start": 1, "frame_end": 3}),
    "SLAB": ("shape_measures", {"object": "Top", "fill": [0.95, 1.001], "frame": 1}),
    "SOLID": ("solid_parts", {"object": "Top", "max_shells": 1, "min_fill": 0.9, "max_holes": 0, "frame": 1}),
}
# delivery -> {criterion: what its detail names}
EXPECTED = {
    "rig": {}, "fill_spread_90": {},
    "fill_spread_10": {"FILL": "its Spread focusing it 394x"},
    "fill_close": {"FILL": "x Key: 60 W at"},
    "gold_tint_0_95": {}, "glaze_tint_black": {}, "elbow_120": {},
    "elbow_150": {"HINGE": "further than 0.15 m from their joint"},
    "elbow_180": {"HINGE": "Upper runs 0.0600 m into Fore (frame 3) further than 0.15 m from their joint"},
    "elbow_swings_through": {"HINGE": "(frame 1."},
    "gold_tint_black": {"GOLD": "a metal's edge darkened by its Specular Tint (Metallic x (1 - min channel)) 1 above 0.1"},
    "gold_tint_0_8": {"GOLD": "a metal's edge darkened by its Specular Tint (Metallic x (1 - min channel)) 0.2 above 0.1"},
    "top_slotted": {"SLAB": "out of range: Top (fill)", "SOLID": "Top (min_fill)"},
    "top_slotted_triangulated": {"SLAB": "out of range: Top (fill)", "SOLID": "Top (min_fill)"},
    "top_grooved": {"SLAB": "out of range: Top (fill)", "SOLID": "Top (min_fill)"},
    "top_rounded": {}, "top_eased": {},
}
# delivery -> the top's fill (its enclosed volume over its own box)
FILLS = {"rig": 1.0, "top_slotted": 1 - 0.1 * 0.78 / 0.96, "top_slotted_triangulated": 1 - 0.1 * 0.78 / 0.96,
         "top_grooved": 1 - 0.1 * 0.03 / 0.048, "top_rounded": 1 - (4 - math.pi) * 0.05 ** 2 / 0.96}
# delivery -> the top's least filled cross-section over its outline, the same plane's section of
# its convex hull (solid_parts' min_fill, red team 36): a plane inside the slot, along it, meets
# only the 2 cm strip behind it; one inside the groove its 1 cm roof
SECTIONS = {"rig": 1.0, "top_slotted": 0.02 / 0.8, "top_slotted_triangulated": 0.02 / 0.8, "top_grooved": 0.01 / 0.04}
# operator -> the criteria it fails on the rig
NEW_OPERATORS = {"fill_focused_by_spread": {"FILL"}, "metal_edge_tint_black": {"GOLD"}, "hinge_folded_in": {"HINGE"}}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    return build_scenes(tmp_path_factory.mktemp("redteam-open"), MAKE, CASES, "redteam-open", "from_scratch")


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_what_was_left_open_is_measured(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                         scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)


@pytest.mark.parametrize("delivery", sorted(FILLS))
def test_a_slab_is_filled_and_a_slotted_or_grooved_one_is_not(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                         scenes["tmp"] / f"report-fill-{delivery}.json")
    slab = next(c for c in report["criteria"] if c["id"] == "SLAB")
    assert slab["measured"]["Top"]["fill"] == pytest.approx(FILLS[delivery], abs=2e-3), slab
    assert slab["passed"] is (FILLS[delivery] >= 0.95)


@pytest.mark.parametrize("delivery", sorted(SECTIONS))
def test_a_concave_face_is_measured_as_its_triangulated_twin(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                         scenes["tmp"] / f"report-sections-{delivery}.json")
    solid = next(c for c in report["criteria"] if c["id"] == "SOLID")
    [shell] = solid["measured"]["Top"]["per_shell"]
    assert shell["fill"] == pytest.approx(SECTIONS[delivery], abs=1e-3), solid
    assert solid["passed"] is (SECTIONS[delivery] >= 0.9), solid["detail"]


def test_the_fill_puts_what_light_on_reads(scenes):
    report = probe_local(scenes["tmp"] / "fill_spread_10.blend", scenes["task"], scenes["rubric"],
                         scenes["tmp"] / "report-readings.json")
    fill = next(c for c in report["criteria"] if c["id"] == "FILL")["measured"]["Fill"]
    # the key summed over its panel (red team 42): a little under its power at its centre
    point = 60 / (math.pi * 2.64)
    assert 0.95 * point <= fill["reference_on_target"] <= point, (fill, point)
    assert fill["on_target"] > 16 * fill["reference_on_target"]


def test_the_new_operators_apply_and_are_killed(scenes):
    with local_probe() as probe:
        rows = probe.mutate(scenes["tmp"] / "rig.blend", scenes["task"], scenes["rubric"], None,
                            operators=list(NEW_OPERATORS))
    assert_operators_killed(rows, NEW_OPERATORS)


def test_the_new_operators_are_listed():
    assert set(NEW_OPERATORS) <= set(OPERATOR_NAMES)
