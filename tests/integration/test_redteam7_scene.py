"""Red team 7 (issue 33), in real Blender: geometry a render draws with no mesh to measure.

A small mesh whose Geometry Nodes add a point cloud or a volume cube draws, as depsgraph
instances, geometry that turns into no mesh: the probe crashed on it ("Object does not have
geometry data") and, had it skipped it, the point cloud or fog sticking out of the parts would have
gone unmeasured.  Now the probe measures the rest and `others_drawn` names the drawer as geometry
the grader cannot measure; a plain extra mesh inside the allowed box still passes.  Blender runs
unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import probe_local, assert_refused_as_expected, build_scenes

pytestmark = pytest.mark.blender

MAKE = r'''
import sys
from pathlib import Path

import bpy

out = Path(sys.argv[-1])
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0.0, 0.0, 0.5))
bpy.context.active_object.name = "Cube"
bpy.ops.mesh.primitive_cube_add(size=0.05, location=(0.0, 0.0, 0.5))
bpy.context.active_object.name = "Brace"
bpy.ops.wm.save_as_mainfile(filepath=str(out / "start.blend"))


def with_nodes(name, make):
    bpy.ops.wm.open_mainfile(filepath=str(out / "start.blend"))
    tree = bpy.data.node_groups.new("BraceGN", "GeometryNodeTree")
    tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    join = tree.nodes.new("GeometryNodeJoinGeometry")
    tree.links.new(tree.nodes.new("NodeGroupInput").outputs[0], join.inputs[0])
    tree.links.new(make(tree).outputs[0], join.inputs[0])
    tree.links.new(join.outputs[0], tree.nodes.new("NodeGroupOutput").inputs[0])
    bpy.data.objects["Brace"].modifiers.new("GN", "NODES").node_group = tree
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


def points(tree):
    node = tree.nodes.new("GeometryNodePoints")
    node.inputs["Position"].default_value = (3.0, 0.0, 0.0)
    node.inputs["Radius"].default_value = 0.8
    return node


def volume(tree):
    node = tree.nodes.new("GeometryNodeVolumeCube")
    node.inputs["Min"].default_value = (-2.0, -2.0, 0.0)
    node.inputs["Max"].default_value = (2.0, 2.0, 2.0)
    return node


with_nodes("points", points)
with_nodes("volume", volume)
'''

INSIDE = {"min": [-0.6, -0.6, -0.1], "max": [0.6, 0.6, 1.1]}
CASES = {
    "OTHERS": ("others_drawn", {"expected": ["Cube"], "others_within": INSIDE}),
    "SIZE": ("dimensions", {"object": "Cube", "expected": [1.0, 1.0, 1.0], "tolerance": 0.001}),
}
EXPECTED = {
    "start": {},
    "points": {"OTHERS": "geometry the grader cannot measure: Brace (draws pointcloud instances"},
    "volume": {"OTHERS": "geometry the grader cannot measure: Brace (draws volume instances"},
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    return build_scenes(tmp_path_factory.mktemp("redteam7-scene"), MAKE, CASES, "redteam7-scene", "from_scratch")


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_geometry_without_a_mesh_is_named_not_a_crash(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                                   scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)
