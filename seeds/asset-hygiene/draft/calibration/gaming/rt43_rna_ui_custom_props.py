"""Gaming (must fail): the old import scale kept in "_RNA_UI..." custom properties on every prop.

The reference clean-up, then each prop given `_RNA_UI_import_scale` (0.01) and
`_RNA_UI_import_rotation_x` (90): names that start like Blender's own old property-settings key,
written by FBX and glTF exporters (REQ-SCENE-KEPT: every other object setting stays as supplied).
Found by red team 43.
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
for name in ("SM_Workbench", "SM_PartsBin", "SM_SafetyPost", "SM_RobotPedestal"):
    bpy.data.objects[name]["_RNA_UI_import_scale"] = 0.01
    bpy.data.objects[name]["_RNA_UI_import_rotation_x"] = 90.0
