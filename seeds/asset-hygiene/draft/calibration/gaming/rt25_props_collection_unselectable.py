"""Gaming (must fail): the reference clean-up, then the props are moved into a collection
"Props" whose Selectable switch is off (collection.hide_select, the Outliner's arrow icon on the
collection).

Whoever opens result.blend cannot click, box-select or Select All any prop in the viewport:
bpy.ops.object.select_all(action="SELECT") selects nothing and context.selectable_objects is
empty, so "Export > Selected Objects", a check of the transforms in the N panel or any further
edit needs the collection's switch found first.  Same effect as rt23_props_unselectable (the
object's own hide_select, refused by C09's viewport 'editor' key), moved onto the collection the
ticket lets the agent organise the props into.  Breaks REQ-SCENE-KEPT ("every other object
setting stay as supplied - how the file shows it when opened too ...").
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

# --- the props organised into a collection that is not selectable ---
props_coll = bpy.data.collections.new("Props")
scene.collection.children.link(props_coll)
for obj in props:
    props_coll.objects.link(obj)
    scene.collection.objects.unlink(obj)
props_coll.hide_select = True
