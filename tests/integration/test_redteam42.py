"""Red team 42 (issue 33), in real Blender: a surface that sends back more light than it gets, and
pieces of a part stacked face to face.

table-model passed with Wood's Base Color linked from a Value node of 50, and with a brace under
the top whose Base Color was 10000 (Cycles' indirect clamp off): no emission, yet each surface
sends back many times the light that falls on it, a lamp in the render. ``lights_on`` counts such
a surface as a glow it cannot measure (``probes_surface.MAX_REFLECTANCE``): Σ weight x colour over
the closures that reflect, per channel, above 1. White (1.0) passes; two Diffuse BSDFs of 0.8
added together (1.6) do not.

product-lighting passed with the key a 3 m panel 2.49 m from the speaker and the fill's Spread
narrowed until its reading sat under the key's: both were read as points at their centres, at
full power. ``dimmer_than`` sums the key over its panel now (``probes_scene.panel_on``: each cell
at its own distance and angle, Cycles' Spread falloff included), the fill the larger of the two
readings; a small key far off reads as before.

fence-array passed with its two rails stacked face to face: each a closed piece, neither passing
into the other, one rail twice as high in a render. ``solid_parts`` ``pieces_apart``: two pieces of
a part meeting face to face over 1 cm² count as fused; without it, touching pieces pass as before.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import math

import pytest

from tests.probe_cases import BPY_SCENE_HELPERS, assert_refused_as_expected, build_case_groups, probe_case

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = BPY_SCENE_HELPERS + r'''
def lit(name, extra=None):
    """SM_Box in Wood (a Principled BSDF of Base Color 0.5) under a sun of strength 3;
    ``extra(scene, wood)`` changes it."""
    scene = fresh()
    obj = box("SM_Box", (0.4, 0.4, 0.4), (0.0, 0.0, 0.2))
    wood = bpy.data.materials.new("Wood")
    wood.use_nodes = True
    bsdf = wood.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (0.5, 0.5, 0.5, 1.0)
    obj.data.materials.append(wood)
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    sun.data.energy = 3.0
    scene.collection.objects.link(sun)
    if extra is not None:
        extra(scene, wood)
    save(name)


def value_into_base(tree, value):
    node = tree.nodes.new("ShaderNodeValue")
    node.outputs[0].default_value = value
    tree.links.new(node.outputs[0], tree.nodes["Principled BSDF"].inputs["Base Color"])


def white(scene, wood):
    value_into_base(wood.node_tree, 1.0)


def fifty(scene, wood):
    value_into_base(wood.node_tree, 50.0)


def added_diffuse(scene, wood):
    tree = wood.node_tree
    a, b = tree.nodes.new("ShaderNodeBsdfDiffuse"), tree.nodes.new("ShaderNodeBsdfDiffuse")
    a.inputs["Color"].default_value = b.inputs["Color"].default_value = (0.8, 0.8, 0.8, 1.0)
    add = tree.nodes.new("ShaderNodeAddShader")
    tree.links.new(a.outputs[0], add.inputs[0])
    tree.links.new(b.outputs[0], add.inputs[1])
    tree.links.new(add.outputs[0], tree.nodes["Material Output"].inputs["Surface"])


def brace_lamp(scene, wood):
    paint = bpy.data.materials.new("Paint")
    paint.use_nodes = True
    value_into_base(paint.node_tree, 10000.0)
    brace = box("Brace", (0.3, 0.3, 0.01), (0.0, 0.0, 0.5))
    brace.data.materials.append(paint)


def rails(name, gap):
    """Rails: two 1.0 x 0.03 x 0.07 m boxes in one mesh, the upper one ``gap`` above the lower."""
    fresh()
    bm = bmesh.new()
    for z in (0.25, 0.25 + 0.07 + gap):
        geom = bmesh.ops.create_cube(bm, size=1.0)["verts"]
        bmesh.ops.scale(bm, vec=(1.0, 0.03, 0.07), verts=geom)
        bmesh.ops.translate(bm, vec=(0.0, 0.0, z + 0.035), verts=geom)
    mesh = bpy.data.meshes.new("Rails")
    bm.to_mesh(mesh)
    bm.free()
    bpy.context.scene.collection.objects.link(bpy.data.objects.new("Rails", mesh))
    save(name)


KEY_GAIN = 1 / (1 - 3.141592653589793 / 4)  # a Spread of 90 degrees: tan(45) / (tan(45) - pi / 4)


def rig(name, key_size, key_distance):
    """Product (a 0.4 x 0.4 x 1.0 m box) lit by Key (60 W, Spread 90) and Fill (15 W, a 5 cm
    panel 1.5 m away, its Spread narrowed until, read as a point, it puts 0.8 of what Key does read
    as a point): Key a square ``key_size`` wide ``key_distance`` from the box's centre."""
    import math
    from mathutils import Vector
    scene = fresh()
    box("Product", (0.4, 0.4, 1.0), (0.0, 0.0, 0.5))
    centre = Vector((0.0, 0.0, 0.5))

    def lamp(lname, energy, size, spread, direction, distance):
        data = bpy.data.lights.new(lname, "AREA")
        data.energy, data.shape, data.size, data.spread = energy, "SQUARE", size, spread
        obj = bpy.data.objects.new(lname, data)
        scene.collection.objects.link(obj)
        obj.location = centre + Vector(direction).normalized() * distance
        obj.rotation_euler = (centre - obj.location).to_track_quat("-Z", "Y").to_euler()

    def spread_for(gain):
        """The Spread whose beam gain, tan(a) / (tan(a) - a) at a half of it (Cycles'), is ``gain``."""
        lo, hi = 1e-3, math.pi / 2
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if math.tan(mid) / (math.tan(mid) - mid) > gain else (lo, mid)
        return lo + hi

    lamp("Key", 60.0, key_size, math.radians(90), (-1.0, -1.0, 0.5), key_distance)
    gain = 0.8 * (60.0 * KEY_GAIN / key_distance ** 2) / (15.0 / 1.5 ** 2)
    lamp("Fill", 15.0, 0.05, spread_for(gain), (1.0, -1.0, 0.2), 1.5)
    save(name)


rig("rig_small_key", 0.5, 2.0)
rig("rig_wide_key", 3.0, 2.49)
lit("lit")
lit("lit_white", white)
lit("lit_fifty", fifty)
lit("lit_added_diffuse", added_diffuse)
lit("lit_brace_lamp", brace_lamp)
rails("rails_apart", 0.4)
rails("rails_stacked", 0.0)
'''

Cases = dict[str, tuple[str, dict]]
LIGHT: Cases = {"LIGHT": ("render_overrides", {"lights_on": {"objects": ["SM_Box"], "max": 30}})}
APART: Cases = {"APART": ("solid_parts", {"object": "Rails", "max_shells": 2, "pieces_apart": True})}
TOUCHING: Cases = {"TOUCHING": ("solid_parts", {"object": "Rails", "max_shells": 2})}
RIG: Cases = {"FILL": ("light_settings", {"object": "Fill", "type": "AREA", "energy": 15,
                                          "dimmer_than": {"light": "Key", "on": "Product"}})}

GROUPS = {"light": LIGHT, "apart": APART, "touching": TOUCHING, "rig": RIG}
EXPECTED: dict[str, tuple[str, dict[str, str]]] = {  # delivery -> (group, {criterion: what its detail says})
    "lit": ("light", {}),
    "lit_white": ("light", {}),
    "lit_fifty": ("light", {"LIGHT": "Wood sends back 50 times the light"}),
    "lit_added_diffuse": ("light", {"LIGHT": "Wood sends back 1.6 times the light"}),
    "lit_brace_lamp": ("light", {"LIGHT": "Paint sends back 1e+04 times the light"}),
    "rig_small_key": ("rig", {}),
    "rig_wide_key": ("rig", {"FILL": "on the target"}),
    "rails_apart": ("apart", {}),
    "rails_stacked": ("apart", {"APART": "Rails (fused_shells)"}),
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    return build_case_groups(tmp_path_factory.mktemp("redteam42"), MAKE, GROUPS, "redteam42", "from_scratch")


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_a_surface_sending_back_more_light_than_it_gets_and_pieces_stacked_face_to_face(scenes, delivery):
    group, refused = EXPECTED[delivery]
    report = probe_case(scenes, group, delivery)
    assert_refused_as_expected(report, refused, delivery)
    if group == "rig":  # a small key far off reads near a point; the wide one at well under it
        fill = report["criteria"][0]["measured"]["Fill"]
        point = 60 / (1 - math.pi / 4) / math.pi / (2.0 if delivery == "rig_small_key" else 2.49) ** 2
        assert fill["on_target"] == pytest.approx(0.8 * point, rel=0.02), fill
        share = fill["reference_on_target"] / point
        assert (0.85 < share < 1.0) if delivery == "rig_small_key" else share < 0.7, (share, fill)
    if delivery == "rails_stacked":
        [fused] = report["criteria"][0]["measured"]["Rails"]["fused"]
        assert fused[2] == "face to face" and fused[3] == pytest.approx(1.0 * 0.03, rel=1e-3), fused


def test_pieces_that_only_touch_pass_where_they_are_not_held_apart(scenes):
    assert_refused_as_expected(probe_case(scenes, "touching", "rails_stacked"), {}, "rails_stacked")
