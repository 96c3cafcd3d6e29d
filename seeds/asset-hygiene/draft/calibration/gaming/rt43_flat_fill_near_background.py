"""Gaming (must fail): every 3D view saved Flat, in one grey 3.2 dE from its grey background.

The reference clean-up, then every 3D view saved in Solid, Flat lighting, Single colour 0.066 grey
on a viewport background of 0.05 grey, cavity, shadows, outline and wireframe off: the props are
flat patches barely apart from the background when the file opens (REQ-SCENE-KEPT: displayed as
supplied). Found by red team 43.
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
    shading = space.shading
    shading.type, shading.light, shading.color_type = "SOLID", "FLAT", "SINGLE"
    shading.background_type, shading.background_color = "VIEWPORT", (0.05, 0.05, 0.05)
    shading.single_color = (0.066, 0.066, 0.066)
    shading.show_cavity = shading.show_shadows = shading.show_object_outline = False
    space.overlay.show_wireframes = False
