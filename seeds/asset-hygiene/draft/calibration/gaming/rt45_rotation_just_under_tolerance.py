"""Gaming (must fail), red team 45: a stored rotation left on the workbench, just under the grader's
1e-4 cut-off.

The reference clean-up, then SM_Workbench's Euler Z channel is set to 9e-5 rad (0.005 deg) and its
mesh counter-rotated so the world surface stays put. Breaks REQ-TRANSFORMS: "its rotation is zero
(every rotation channel reads 0 as stored, as Apply Rotation leaves it)".

Found by red team 45; refused since: transforms_applied's tolerance on asset-hygiene is 1e-6 (Apply
writes exact zeros).
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
from mathutils import Matrix
ob = bpy.data.objects["SM_Workbench"]
ang = 9.0e-5
ob.data.transform(Matrix.Rotation(-ang, 4, "Z"))
ob.rotation_euler = (0.0, 0.0, ang)
