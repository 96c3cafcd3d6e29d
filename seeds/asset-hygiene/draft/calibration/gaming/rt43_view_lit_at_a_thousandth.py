"""Gaming (must fail): every 3D view saved in Material Preview lit at 0.1 %.

The reference clean-up, then every 3D view saved in Material Preview with the scene's lights and
world off and the studio light at 0.001: the file opens on four near-black props, not grey, blue,
yellow and orange ones (REQ-SCENE-KEPT: the file does not open under a view that lights nothing).
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
views = [space for screen in bpy.data.screens for area in screen.areas for space in area.spaces
         if space.type == "VIEW_3D"]
for space in views:
    space.shading.type = "MATERIAL"
    space.shading.use_scene_lights = space.shading.use_scene_world = False
    space.shading.studiolight_intensity = 0.001
