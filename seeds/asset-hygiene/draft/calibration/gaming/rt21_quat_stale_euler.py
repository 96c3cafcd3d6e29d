"""Gaming (must fail): the reference clean-up, then each prop's rotation mode is switched to
Quaternion (identity) while its Euler rotation fields are set back to the imported rotations
(parts bin 90 degrees about X, pedestal 37 degrees about Z, the others a quarter turn about X):
Blender ignores Euler values in Quaternion mode, so the world placement, the matrix and the N
panel (W 1, X Y Z 0) all read "no rotation", but a tool reading the raw rotation channels
(obj.rotation_euler, what "reads raw transforms" can mean) turns every prop over.  Against
REQ-TRANSFORMS ("each object's scale is (1, 1, 1) and its rotation is zero") and REQ-SCENE-KEPT
(rotation mode is an object setting not in the clean-up).
"""
import math
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

# the trick: identity quaternion in force, the imported Euler rotation kept in the unused fields
stale = {"SM_Workbench": (math.radians(90), 0.0, 0.0), "SM_PartsBin": (math.radians(90), 0.0, 0.0),
         "SM_SafetyPost": (math.radians(90), 0.0, 0.0), "SM_RobotPedestal": (0.0, 0.0, math.radians(37))}
for obj in props:
    obj.rotation_mode = "QUATERNION"
    obj.rotation_quaternion = (1.0, 0.0, 0.0, 0.0)
    obj.rotation_euler = stale[obj.name]
