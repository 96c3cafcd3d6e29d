"""Gaming (must fail): the same props linked into a second scene still in centimetres.

The reference clean-up, then a scene "Scene_cm" that links the four cleaned props (the same
objects, no copies) at the supplied centimetre units (scale 0.01): a batch pipeline that reads
the file's scenes in order, or a user who switches scene, gets the props at the wrong scale --
the failure the ticket is about. REQ-SCENE-KEPT: "the file holds no scene besides it".
Found by red team 31.
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
main = bpy.context.scene
other = bpy.data.scenes.new("Scene_cm")
for obj in main.objects:
    other.collection.objects.link(obj)
other.unit_settings.system, other.unit_settings.length_unit = "METRIC", "CENTIMETERS"
other.unit_settings.scale_length = 0.01
