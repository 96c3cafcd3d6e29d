"""Red team 44 (issue 33), in real Blender: a Spread read as Cycles renders it, a subsurface depth
by its size, a part saved with its faces hidden, a post stepped sideways, values read from
attributes, a world's unbounded texture, and pieces the viewport alone moves.

product-lighting passed with the fill's Spread at 45 degrees: read as 1 / sin²(Spread / 2), a third
of the beam Cycles renders (tan(a) / (tan(a) - a), ``probes_scene.beam_gain``), it stayed under the
key and lit the speaker 1.6 times as much. A fill at 120 degrees stays under the key, at 60 it
outshines it (2.15 times; read as before, 0.80 of it).

mug-material passed with Subsurface Scale -1 and Radius (-5, -5, 0.001): the signed product read
-0.001, the render scattered 5 m deep. Scale and Radius count by their size.

table-model passed with its parts saved in Edit Mode (or Sculpt Mode), every face hidden: the
file opens on no table. A mesh saved in a mode that does not draw hidden faces, with any hidden,
does not show its surface; in Object Mode, or with none hidden, it does. And with a post of three
blocks stepped 5.1 cm sideways each: ``under_stays_open`` counts what lies within 10 cm of a line
and looks from every horizontal direction; red team 38's apron, stretchers and braces pass.

fence-array passed with a Base Color of 40 x wood and a Normal turned away, each read by an
Attribute node from a mesh attribute (the evaluator reads them now: a colour of 0.5 and the faces'
own normals pass); with the colour mixed by a View Layer attribute reading a scene property keyed
0 to 1 (a part's look holds what it reads: keyed 0 to 0 passes); with the world's Color a
Multifractal Noise, Normalize off (``BOUNDED_TEXTURES``: an fBM Noise, normalised, passes); and
with pickets moved by a Geometry Nodes modifier shown in the viewport alone (a Simple subdivision
shown at other levels passes).

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.integration.test_redteam38 import MAKE as TABLES, PARTS
from tests.probe_cases import assert_refused_as_expected, build_case_groups, probe_case

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

# red team 38's table (its scenes are made again; only these are probed here)
MAKE = TABLES.split("\ntable(\"table\")")[0] + r'''
from mathutils import Vector


def area(scene, name, energy, location, size, spread_deg, aim=(0.0, 0.0, 0.5)):
    data = bpy.data.lights.new(name, "AREA")
    data.energy, data.size, data.spread = energy, size, math.radians(spread_deg)
    obj = bpy.data.objects.new(name, data)
    obj.location = location
    obj.rotation_euler = (Vector(aim) - obj.location).to_track_quat("-Z", "Y").to_euler()
    scene.collection.objects.link(obj)


def rig(name, fill_spread):
    """Product (a 0.4 x 0.4 x 1.0 m box) lit by Key (60 W, Spread 180, 2.2 m off) and Fill (15 W,
    a 1 m panel 2.7 m off, Spread ``fill_spread``)."""
    scene = fresh()
    box("Product", (0.4, 0.4, 1.0), (0.0, 0.0, 0.5))
    area(scene, "Key", 60.0, (-1.2, -1.2, 1.6), 0.6, 180.0)
    area(scene, "Fill", 15.0, (1.5, 0.3, 2.2), 1.0, fill_spread)
    save(name)


def principled_part(name, extra=None):
    """Part (0.4 x 0.3 x 0.2 m) in the material Glaze; ``extra(scene, obj, mat, bsdf)`` changes it."""
    scene = fresh()
    scene.frame_start, scene.frame_end = 1, 20
    obj = box("Part", (0.4, 0.3, 0.2), (0.0, 0.0, 0.1))
    mat = bpy.data.materials.new("Glaze")
    mat.use_nodes = True
    obj.data.materials.append(mat)
    if extra is not None:
        extra(scene, obj, mat, mat.node_tree.nodes["Principled BSDF"])
    save(name)


def subsurface(scale, radius):
    def extra(scene, obj, mat, bsdf):
        bsdf.inputs["Subsurface Weight"].default_value = 1.0
        bsdf.inputs["Subsurface Scale"].default_value = scale
        bsdf.inputs["Subsurface Radius"].default_value = radius
    return extra


def from_attribute(colour, turned):
    """Base Color from a colour attribute of ``colour`` on every point, Normal from a face
    attribute: each face's normal, turned round where ``turned``."""
    def extra(scene, obj, mat, bsdf):
        tint = obj.data.color_attributes.new("Tint", "FLOAT_COLOR", "POINT")
        for item in tint.data:
            item.color = (colour, colour * 0.6, colour * 0.3, 1.0)
        facing = obj.data.attributes.new("Facing", "FLOAT_VECTOR", "FACE")
        for face, item in zip(obj.data.polygons, facing.data):
            item.vector = -face.normal if turned else face.normal
        tree = mat.node_tree
        for attr_name, output, socket in (("Tint", "Color", "Base Color"), ("Facing", "Vector", "Normal")):
            node = tree.nodes.new("ShaderNodeAttribute")
            node.attribute_type, node.attribute_name = "GEOMETRY", attr_name
            tree.links.new(node.outputs[output], bsdf.inputs[socket])
    return extra


def keyed_shift(end_value):
    """Base Color mixed from brown to magenta by a View Layer attribute reading the scene's
    property "shift", keyed 0 on frame 1 and ``end_value`` on frame 10."""
    def extra(scene, obj, mat, bsdf):
        scene["shift"] = 0.0
        scene.keyframe_insert('["shift"]', frame=1)
        scene["shift"] = end_value
        scene.keyframe_insert('["shift"]', frame=10)
        tree = mat.node_tree
        mix = tree.nodes.new("ShaderNodeMix")
        mix.data_type = "RGBA"
        mix.inputs["A"].default_value, mix.inputs["B"].default_value = (0.3, 0.15, 0.05, 1.0), (1.0, 0.0, 1.0, 1.0)
        node = tree.nodes.new("ShaderNodeAttribute")
        node.attribute_type, node.attribute_name = "VIEW_LAYER", "shift"
        tree.links.new(node.outputs["Fac"], mix.inputs["Factor"])
        tree.links.new(mix.outputs["Result"], bsdf.inputs["Base Color"])
    return extra


def noisy_world(kind, normalize):
    def extra(scene, obj, mat, bsdf):
        world = bpy.data.worlds.new("World")
        scene.world = world
        world.use_nodes = True
        tree = world.node_tree
        noise = tree.nodes.new("ShaderNodeTexNoise")
        noise.noise_type, noise.normalize = kind, normalize
        noise.inputs["Detail"].default_value, noise.inputs["Lacunarity"].default_value = 15.0, 1.0
        tree.links.new(noise.outputs["Fac"], tree.nodes["Background"].inputs["Color"])
    return extra


def crate(name, mode, hidden):
    """Crate (0.4 x 0.3 x 0.2 m) saved in ``mode`` with its faces hidden or not."""
    scene = fresh()
    obj = box("Crate", (0.4, 0.3, 0.2), (0.0, 0.0, 0.1))
    if hidden:
        for elements in (obj.data.vertices, obj.data.edges, obj.data.polygons):
            elements.foreach_set("hide", [True] * len(elements))
    bpy.context.view_layer.objects.active = obj
    obj.select_set(True)
    if mode != "OBJECT":
        bpy.ops.object.mode_set(mode=mode)
    save(name)


def row(name, extra=None):
    """Row: five 0.2 m cubes 0.25 m apart along X (an Array modifier), 1.2 m long."""
    scene = fresh()
    obj = box("Row", (0.2, 0.2, 0.2), (-0.5, 0.0, 0.1))
    array = obj.modifiers.new("Array", "ARRAY")
    array.count, array.relative_offset_displace = 5, (1.25, 0.0, 0.0)
    if extra is not None:
        extra(obj)
    save(name)


def shifted_in_viewport(obj):
    """Every other cube moved 4 cm along X by a Geometry Nodes modifier shown in the viewport only."""
    tree = bpy.data.node_groups.new("Shift", "GeometryNodeTree")
    tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    nodes, links = tree.nodes, tree.links
    given, out = nodes.new("NodeGroupInput"), nodes.new("NodeGroupOutput")
    island, odd = nodes.new("GeometryNodeInputMeshIsland"), nodes.new("ShaderNodeMath")
    odd.operation, odd.inputs[1].default_value = "PINGPONG", 1.0
    scale, along, move = nodes.new("ShaderNodeMath"), nodes.new("ShaderNodeCombineXYZ"), nodes.new("GeometryNodeSetPosition")
    scale.operation, scale.inputs[1].default_value = "MULTIPLY", 0.04
    links.new(island.outputs["Island Index"], odd.inputs[0])
    links.new(odd.outputs[0], scale.inputs[0])
    links.new(scale.outputs[0], along.inputs["X"])
    links.new(along.outputs[0], move.inputs["Offset"])
    links.new(given.outputs[0], move.inputs["Geometry"])
    links.new(move.outputs["Geometry"], out.inputs[0])
    mod = obj.modifiers.new("Shift", "NODES")
    mod.node_group, mod.show_render, mod.show_viewport = tree, False, True


def simple_subdivision(obj):
    mod = obj.modifiers.new("Subdivision", "SUBSURF")
    mod.subdivision_type, mod.levels, mod.render_levels = "SIMPLE", 0, 2


def stepped_posts(scene, wood):
    """Two posts under the long sides, each three 4 cm blocks floor to top, every block 5.1 cm
    further along X and Y and 1.1 cm above the one below."""
    block = (0.71 - 2 * 0.011) / 3
    for k, (x, y) in enumerate(((-0.2, -0.3), (0.1, 0.15))):
        for i in range(3):
            add_on(f"Step.{k}.{i}", (0.04, 0.04, block), (x + 0.051 * i, y + 0.051 * i, i * (block + 0.011) + block / 2),
                   wood)


rig("rig_fill_120", 120.0)
rig("rig_fill_60", 60.0)
principled_part("glaze_shallow", subsurface(0.05, (0.1, 0.1, 0.1)))
principled_part("glaze_negative", subsurface(-1.0, (-5.0, -5.0, 0.001)))
principled_part("attr_plain", from_attribute(0.5, False))
principled_part("attr_glow", from_attribute(40.0, False))
principled_part("attr_turned", from_attribute(0.5, True))
principled_part("still_keyed_flat", keyed_shift(0.0))
principled_part("still_keyed", keyed_shift(1.0))
principled_part("world_fbm", noisy_world("FBM", True))
principled_part("world_multifractal", noisy_world("MULTIFRACTAL", False))
crate("crate_edit_shown", "EDIT", False)
crate("crate_edit_hidden", "EDIT", True)
crate("crate_object_hidden", "OBJECT", True)
crate("crate_sculpt_hidden", "SCULPT", True)
row("row")
row("row_shifted_in_viewport", shifted_in_viewport)
row("row_simple_subdivision", simple_subdivision)
table("table_apron", apron_and_stretchers)
table("table_stepped_posts", stepped_posts)
'''

GROUPS = {
    "rig": {"FILL": ("light_settings", {"object": "Fill", "type": "AREA", "energy": 15,
                                        "dimmer_than": {"light": "Key", "on": "Product"}})},
    "glaze": {"SHADER": ("surface_shader", {"material": "Glaze", "shader": "BSDF_PRINCIPLED"})},
    "attr": {"LIGHT": ("render_overrides", {"lights_on": {"objects": ["Part"], "max": 30}}),
             "NORMALS": ("normals_follow_faces", {"objects": ["Part"], "max_angle": 90, "max_share": 0.0})},
    "still": {"STILL": ("unchanged_over_frames", {"objects": ["Part"]})},
    "world": {"WORLD": ("render_overrides", {"max_world_strength": 10})},
    "crate": {"SIZE": ("dimensions", {"object": "Crate", "expected": [0.4, 0.3, 0.2], "tolerance": 0.001})},
    "row": {"SIZE": ("dimensions", {"object": "Row", "expected": [1.2, 0.2, 0.2], "tolerance": 0.005})},
    "table": {"OPEN": ("under_stays_open", {"under": "Tabletop", "parts": PARTS, "frame": 1})},
}
EXPECTED = {  # delivery -> (group, {criterion: what its failing detail says})
    "rig_fill_120": ("rig", {}),
    "rig_fill_60": ("rig", {"FILL": "its Spread focusing it 10.7x"}),
    "glaze_shallow": ("glaze", {}),
    "glaze_negative": ("glaze", {"SHADER": "Subsurface Scale x Radius 5 above 0.01"}),
    "attr_plain": ("attr", {}),
    "attr_glow": ("attr", {"LIGHT": "sends back 40"}),
    "attr_turned": ("attr", {"NORMALS": "turned away from their faces: Part"}),
    "still_keyed_flat": ("still", {}),
    "still_keyed": ("still", {"STILL": "Part from frame"}),
    "world_fbm": ("world", {}),
    "world_multifractal": ("world", {"WORLD": "cannot be r"}),
    "crate_edit_shown": ("crate", {}),
    "crate_edit_hidden": ("crate", {"SIZE": "saved in Edit Mode with 6 of 6 faces hidden"}),
    "crate_object_hidden": ("crate", {}),
    "crate_sculpt_hidden": ("crate", {"SIZE": "saved in Sculpt Mode with 6 of 6 faces hidden"}),
    "row": ("row", {}),
    "row_shifted_in_viewport": ("row", {"SIZE": "the viewport draws a piece at x"}),
    "row_simple_subdivision": ("row", {}),
    "table_apron": ("table", {}),
    "table_stepped_posts": ("table", {"OPEN": "within 0.1 m of the line"}),
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    return build_case_groups(tmp_path_factory.mktemp("redteam44"), MAKE, GROUPS, "redteam44", "from_scratch")


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_spread_depth_hidden_faces_steps_attributes_worlds_and_viewport_pieces(scenes, delivery):
    group, refused = EXPECTED[delivery]
    report = probe_case(scenes, group, delivery)
    assert_refused_as_expected(report, refused, delivery)
    if group == "table":
        measured = report["criteria"][0]["measured"]
        assert (measured["fill"] > 0.5) is (delivery == "table_stepped_posts"), measured
        assert measured["span"] <= 0.5, measured  # no block runs over half the height on its own
