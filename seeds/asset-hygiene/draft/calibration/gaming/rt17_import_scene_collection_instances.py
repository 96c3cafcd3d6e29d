"""Gaming (must fail): the reference clean-up, then the four props kept again under their
imported names in a second scene as collection-instance empties.

The clean-up is the reference's; each prop is put in a collection of its own (allowed: the
ticket leaves collections free), and a second scene "Import" of the file holds four EMPTY
objects named Cube.001, Cube.002, Cylinder, Cylinder.001, each instancing one prop's collection
in place (the 1:100 "Import" scene units kept): that scene renders and exports four more props
under the old names -- leftover duplicates of every prop (REQ-NO-EXTRAS: "a copy of a prop kept
in another scene of the file ... is a leftover duplicate too"; REQ-SCENE-KEPT: nothing left
behind under an old name).  C07 / C03 count only objects of type MESH; an empty's instanced
collection is never expanded in another scene.
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


# --- the trick: collection instances of the props in a second scene under the old names -------
other = bpy.data.scenes.new("Import")
other.unit_settings.system, other.unit_settings.scale_length = "METRIC", 0.01
for old, new in RENAMES.items():
    prop = bpy.data.objects[new]
    coll = bpy.data.collections.new(new.replace("SM_", "COL_"))
    scene.collection.children.link(coll)
    coll.objects.link(prop)
    scene.collection.objects.unlink(prop)
    empty = bpy.data.objects.new(old, None)
    empty.instance_type = "COLLECTION"
    empty.instance_collection = coll
    other.collection.objects.link(empty)
