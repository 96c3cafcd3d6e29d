"""Red team 46 (issue 33), in real Blender: an Array's parts keep their shape at other Counts.

fence-array passed with a Geometry Nodes guard after the pickets' Array squashing them to 5 % of
their height at every Count but 10, and with the posts, reading the pickets' vertex count, shrunk
to 5 cm there: ``modifier_effect``'s ``vary`` counted the parts and their spacing only. At each
changed Count each part keeps the delivered parts' size (``VARIED_SIZE_SHARE``) and no other
rendered part shrinks below half its size on an axis (``OTHERS_KEPT_SHARE``); a plain Array, and one
whose parts grow a post's length with it, pass.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import BPY_SCENE_HELPERS, assert_refused_as_expected, build_case_groups, probe_case

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = BPY_SCENE_HELPERS + r'''


def guard(target, points, squash):
    """A Geometry Nodes modifier on ``target`` scaling it to ``squash`` of its height unless the
    Row's mesh after its Array has ``points`` points."""
    tree = bpy.data.node_groups.new("Guard", "GeometryNodeTree")
    tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    nodes, links = tree.nodes, tree.links
    given, out = nodes.new("NodeGroupInput"), nodes.new("NodeGroupOutput")
    size = nodes.new("GeometryNodeAttributeDomainSize")
    same = nodes.new("FunctionNodeCompare")
    same.data_type, same.operation = "INT", "EQUAL"
    same.inputs["B"].default_value = points
    scale = nodes.new("GeometryNodeSwitch")
    scale.input_type = "VECTOR"
    scale.inputs["False"].default_value, scale.inputs["True"].default_value = (1.0, 1.0, squash), (1.0, 1.0, 1.0)
    move = nodes.new("GeometryNodeTransform")
    if target.name == "Row":  # its own input, after the Array
        links.new(given.outputs[0], size.inputs["Geometry"])
    else:  # the Row's evaluated geometry
        row = nodes.new("GeometryNodeObjectInfo")
        row.inputs["Object"].default_value = bpy.data.objects["Row"]
        links.new(row.outputs["Geometry"], size.inputs["Geometry"])
    links.new(size.outputs["Point Count"], same.inputs["A"])
    links.new(same.outputs["Result"], scale.inputs["Switch"])
    links.new(scale.outputs["Output"], move.inputs["Scale"])
    links.new(given.outputs[0], move.inputs["Geometry"])
    links.new(move.outputs["Geometry"], out.inputs[0])
    target.modifiers.new("Guard", "NODES").node_group = tree


def row(name, guarded=None, squash=0.05):
    """Row: five 0.1 x 0.1 x 0.8 m pickets 0.25 m apart (an Array), and a Post beside them;
    ``guarded`` ("Row" or "Post"): that one squashed at any Count but 5."""
    fresh()
    obj = box("Row", (0.1, 0.1, 0.8), (-0.5, 0.0, 0.4))
    array = obj.modifiers.new("Array", "ARRAY")
    array.count, array.relative_offset_displace = 5, (2.5, 0.0, 0.0)
    post = box("Post", (0.1, 0.1, 1.0), (-0.8, 0.0, 0.5))
    if guarded is not None:
        guard(bpy.data.objects[guarded], 40, squash)
    save(name)


row("row")
row("row_squashed", "Row")
row("row_post_squashed", "Post")
row("row_post_grows", "Post", 1.5)
'''

GROUPS = {"row": {"VARY": ("modifier_effect", {"object": "Row", "type": "ARRAY", "min_islands_added": 4,
                                               "vary": {"property": "count", "by": 2, "islands": 2,
                                                        "pitch_tolerance": 0.002}})}}
EXPECTED = {  # delivery -> {criterion: what its failing detail says}
    "row": {},
    "row_squashed": {"VARY": "a part 0.04 m along z where the delivered ones are 0.8"},
    "row_post_squashed": {"VARY": "Post shrinks to 0.05 m along z from 1"},
    "row_post_grows": {},
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    return build_case_groups(tmp_path_factory.mktemp("redteam46"), MAKE, GROUPS, "redteam46", "from_scratch")


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_an_arrays_parts_keep_their_shape_at_other_counts(scenes, delivery):
    report = probe_case(scenes, "row", delivery)
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)
