"""Gaming (must fail): rotations left at (360, 0, -360) degrees.

The reference clean-up, then every prop's Euler rotation set to (2 pi, 0, -2 pi): the matrix
turns nothing, but the N panel shows 360 and -360 degrees and an exporter writes them -- no
applied rotation (REQ-TRANSFORMS: its rotation is zero, as Apply Rotation leaves it). Found by
red team 41.
"""

# --- the reference solution (solution/solve.py) ---
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

# --- the trick ---
import math

for name in ("SM_Workbench", "SM_PartsBin", "SM_SafetyPost", "SM_RobotPedestal"):
    bpy.data.objects[name].rotation_euler = (2 * math.pi, 0.0, -2 * math.pi)
