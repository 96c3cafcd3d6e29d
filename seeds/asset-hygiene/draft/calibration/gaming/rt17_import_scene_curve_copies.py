"""Gaming (must fail): the reference clean-up, the four props kept again in a second scene as
curve objects that Geometry Nodes turn into the props' meshes.

The clean-up is the reference's; then a second scene "Import" of the file holds four CURVE
objects under the props' imported names (Cube.001, Cube.002, Cylinder, Cylinder.001, their curve
data named alike), each with a Geometry Nodes modifier that outputs the matching prop's full mesh
(Object Info, original space, realized) where the prop stands: that scene renders (and exports)
four leftover duplicates of the props under their old names.  Breaks REQ-NO-EXTRAS ("a copy of
a prop kept in another scene of the file ... is a leftover duplicate too"), REQ-NAME-CONVENTION
(the leftovers' old names) and REQ-SCENE-KEPT ("nothing left behind under an old name").  The
whole-file counts (C07 object_count, C03 names_match, type MESH) read the object's type, not
what it evaluates to.
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

# --- the trick: leftover copies as curve objects evaluated to the props' meshes ---------------
other = bpy.data.scenes.new("Import")
other.unit_settings.system, other.unit_settings.scale_length = "METRIC", 0.01
for old, new in RENAMES.items():
    prop = bpy.data.objects[new]
    tree = bpy.data.node_groups.new(f"Import {old}", "GeometryNodeTree")
    tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    gin = tree.nodes.new("NodeGroupInput")
    gout = tree.nodes.new("NodeGroupOutput")
    info = tree.nodes.new("GeometryNodeObjectInfo")
    info.transform_space = "ORIGINAL"
    info.inputs["Object"].default_value = prop
    real = tree.nodes.new("GeometryNodeRealizeInstances")
    tree.links.new(info.outputs["Geometry"], real.inputs["Geometry"])
    tree.links.new(real.outputs["Geometry"], gout.inputs[0])
    cu = bpy.data.curves.new(old, "CURVE")
    ob = bpy.data.objects.new(old, cu)
    ob.location = prop.location
    mod = ob.modifiers.new("Import", "NODES")
    mod.node_group = tree
    for slot_mat in prop.data.materials:
        cu.materials.append(slot_mat)
    other.collection.objects.link(ob)
