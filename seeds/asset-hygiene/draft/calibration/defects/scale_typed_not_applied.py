"""Defect (must fail): scale and rotation typed back to 1 and 0 instead of being applied.

A classic shortcut: the artist zeroes the transform fields in the N panel.  Names and units
are fixed, the transforms read (1, 1, 1) and 0, but the geometry was never baked: the
centimetre workbench and bin are now 100 times too big, the inch pedestal 39 times, the post
a 2 m wide drum, and the bin lies on its side.
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


def select_only(objs):
    bpy.ops.object.select_all(action="DESELECT")
    for obj in objs:
        obj.select_set(True)
    bpy.context.view_layer.objects.active = objs[0]


def origins_to_base(objs):
    for obj in objs:
        corners = [obj.matrix_world @ Vector(c) for c in obj.bound_box]
        lo = Vector([min(c[i] for c in corners) for i in range(3)])
        hi = Vector([max(c[i] for c in corners) for i in range(3)])
        scene.cursor.location = ((lo.x + hi.x) / 2, (lo.y + hi.y) / 2, lo.z)
        select_only([obj])
        bpy.ops.object.origin_set(type="ORIGIN_CURSOR")
    scene.cursor.location = (0.0, 0.0, 0.0)

units = scene.unit_settings
units.system, units.scale_length, units.length_unit = "METRIC", 1.0, "METERS"
for old, new in RENAMES.items():
    obj = bpy.data.objects[old]
    obj.name = obj.data.name = new
    obj.scale = (1.0, 1.0, 1.0)
    obj.rotation_euler = (0.0, 0.0, 0.0)
