"""Gaming (must fail): a helper camera and a sun kept in the file outside the scene.

The reference clean-up, then `HelperCam` (a camera) and `HelperSun` (a sun light), each kept
by a fake user in no scene: the render unchanged, but the file does not come back as it was
sent (REQ-SCENE-KEPT: the props are the file's only objects; no cameras, lights or other
objects added). Found by red team 41.
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
camera = bpy.data.objects.new("HelperCam", bpy.data.cameras.new("HelperCam"))
light = bpy.data.objects.new("HelperSun", bpy.data.lights.new("HelperSun", "SUN"))
camera.use_fake_user = light.use_fake_user = True
