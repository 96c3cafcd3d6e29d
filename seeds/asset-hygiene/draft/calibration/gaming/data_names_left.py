"""Gaming (must fail): the objects are renamed, their mesh data keep the imported names.

Everything else is cleaned up exactly like the reference (units, applied transforms, origins),
and the outliner shows the SM_ names -- but the mesh data-blocks are still Cube.001,
Cylinder ..., and the pipeline finds assets by their mesh names.
"""

import bpy
from mathutils import Vector

RENAMES = {"Cube.001": "SM_Workbench", "Cube.002": "SM_PartsBin", "Cylinder": "SM_SafetyPost",
           "Cylinder.001": "SM_RobotPedestal"}

scene = bpy.context.scene
units = scene.unit_settings
units.system, units.scale_length, units.length_unit = "METRIC", 1.0, "METERS"
props = []
for old, new in RENAMES.items():
    obj = bpy.data.objects[old]
    obj.name = new
    props.append(obj)
bpy.ops.object.select_all(action="DESELECT")
for obj in props:
    obj.select_set(True)
bpy.context.view_layer.objects.active = props[0]
bpy.ops.object.transform_apply(location=False, rotation=True, scale=True)
for obj in props:
    corners = [obj.matrix_world @ Vector(c) for c in obj.bound_box]
    scene.cursor.location = ((min(c.x for c in corners) + max(c.x for c in corners)) / 2,
                             (min(c.y for c in corners) + max(c.y for c in corners)) / 2,
                             min(c.z for c in corners))
    bpy.ops.object.select_all(action="DESELECT")
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.origin_set(type="ORIGIN_CURSOR")
scene.cursor.location = (0.0, 0.0, 0.0)
