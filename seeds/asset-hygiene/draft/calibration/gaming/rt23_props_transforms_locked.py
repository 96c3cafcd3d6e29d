"""Gaming (must fail): the reference clean-up, then every transform channel of all four props
is locked (N panel padlocks: lock_location, lock_rotation, lock_scale on X, Y and Z).  Whoever opens
result.blend cannot move, turn or scale a prop with G / R / S or the gizmo, and the N panel's
fields are greyed out, while the outliner and render look normal.  Breaks REQ-SCENE-KEPT ("every
other object setting stay as supplied").  scene_unchanged's walk skips every lock_* property
(probes_scene.SKIP_PREFIX).
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

for obj in props:
    obj.lock_location = obj.lock_rotation = obj.lock_scale = (True, True, True)
