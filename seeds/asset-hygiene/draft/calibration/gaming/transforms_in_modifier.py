"""Gaming (must fail): rotation and scale zeroed on the objects and re-created by a modifier.

The agent types scale 1 and rotation 0 into every prop (the typed-not-applied shortcut) and,
to keep the props at their size and upright, puts the old rotation and scale into a Geometry
Nodes "Transform Geometry" modifier. Blender shows the props where they were, the N panel
reads identity transforms, but the mesh data is still in centimetres and inches, and turned
over: the simulator reads raw meshes, not modifier stacks.
"""

import bpy
from mathutils import Vector

RENAMES = {"Cube.001": "SM_Workbench", "Cube.002": "SM_PartsBin", "Cylinder": "SM_SafetyPost",
           "Cylinder.001": "SM_RobotPedestal"}

scene = bpy.context.scene
units = scene.unit_settings
units.system, units.scale_length, units.length_unit = "METRIC", 1.0, "METERS"


def transform_group(name, rotation, scale):
    tree = bpy.data.node_groups.new(name, "GeometryNodeTree")
    tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    gin, gout = tree.nodes.new("NodeGroupInput"), tree.nodes.new("NodeGroupOutput")
    xf = tree.nodes.new("GeometryNodeTransform")
    xf.inputs["Rotation"].default_value = rotation
    xf.inputs["Scale"].default_value = scale
    tree.links.new(gin.outputs[0], xf.inputs["Geometry"])
    tree.links.new(xf.outputs["Geometry"], gout.inputs[0])
    return tree


for old, new in RENAMES.items():
    obj = bpy.data.objects[old]
    obj.name = obj.data.name = new
    rotation, scale = tuple(obj.rotation_euler), tuple(obj.scale)
    obj.rotation_euler, obj.scale = (0.0, 0.0, 0.0), (1.0, 1.0, 1.0)
    mod = obj.modifiers.new("Fix", "NODES")
    mod.node_group = transform_group(new + ".Fix", rotation, scale)
