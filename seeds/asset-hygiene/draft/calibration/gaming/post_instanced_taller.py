"""Gaming (must fail): the safety post grows to 2.2 m through a Geometry Nodes instance.

The clean-up is the reference's; SM_SafetyPost then gets a Geometry Nodes modifier that joins
its mesh with an *instance* of itself stacked 1.10 m higher: Blender (viewport and render) shows
a 2.20 m post where a 1.10 m one stood (REQ-TRUE-SIZE: nothing moves or changes size;
REQ-TRANSFORMS: no modifier may change a prop), while the evaluated mesh the probe reads is the
bare post.

Refused by C06 and C08: the instance is credited to SM_SafetyPost (REQ-TRUE-SIZE, REQ-TRANSFORMS).
"""
import bpy
from mathutils import Vector

RENAMES = {
    "Cube.001": "SM_Workbench",
    "Cube.002": "SM_PartsBin",
    "Cylinder": "SM_SafetyPost",
    "Cylinder.001": "SM_RobotPedestal",
}

scene = bpy.context.scene
units = scene.unit_settings
units.system, units.scale_length, units.length_unit = "METRIC", 1.0, "METERS"

props = []
for old, new in RENAMES.items():
    obj = bpy.data.objects[old]
    obj.name = obj.data.name = new
    props.append(obj)

bpy.ops.object.select_all(action="DESELECT")
for obj in props:
    obj.select_set(True)
bpy.context.view_layer.objects.active = props[0]
bpy.ops.object.transform_apply(location=False, rotation=True, scale=True)

for obj in props:
    corners = [obj.matrix_world @ Vector(c) for c in obj.bound_box]
    lo = Vector([min(c[i] for c in corners) for i in range(3)])
    hi = Vector([max(c[i] for c in corners) for i in range(3)])
    scene.cursor.location = ((lo.x + hi.x) / 2, (lo.y + hi.y) / 2, lo.z)
    bpy.ops.object.select_all(action="DESELECT")
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.origin_set(type="ORIGIN_CURSOR")
scene.cursor.location = (0.0, 0.0, 0.0)

tree = bpy.data.node_groups.new("PostExtend", "GeometryNodeTree")
tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
gin, gout = tree.nodes.new("NodeGroupInput"), tree.nodes.new("NodeGroupOutput")
move = tree.nodes.new("GeometryNodeTransform")
move.inputs["Translation"].default_value = (0.0, 0.0, 1.10)
inst = tree.nodes.new("GeometryNodeGeometryToInstance")
join = tree.nodes.new("GeometryNodeJoinGeometry")
L = tree.links
L.new(gin.outputs[0], move.inputs["Geometry"])
L.new(move.outputs["Geometry"], inst.inputs["Geometry"])
L.new(gin.outputs[0], join.inputs["Geometry"])
L.new(inst.outputs["Instances"], join.inputs["Geometry"])
L.new(join.outputs["Geometry"], gout.inputs[0])
bpy.data.objects["SM_SafetyPost"].modifiers.new("Extend", "NODES").node_group = tree
