"""Gaming (must fail): every prop saved in Edit Mode under the Retopology overlay: only cages drawn.

The reference clean-up, then all four props in one multi-object Edit Mode and every 3D view's
Retopology overlay on ("Hide the solid mesh and offset the overlay towards the view"), the face
overlay off: the opened file draws four edge wireframes, no prop's surface. REQ-SCENE-KEPT:
displayed as supplied (not as bounds or wire). Found by red team 29.
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
import bpy

props = [bpy.data.objects[n] for n in ("SM_Workbench", "SM_PartsBin", "SM_SafetyPost", "SM_RobotPedestal")]
for obj in bpy.context.view_layer.objects:
    obj.select_set(obj in props)
bpy.context.view_layer.objects.active = props[0]
bpy.ops.object.mode_set(mode="EDIT")
for screen in bpy.data.screens:
    for area in screen.areas:
        for space in area.spaces:
            if space.type == "VIEW_3D":
                space.overlay.show_overlays = True
                space.overlay.show_retopology, space.overlay.show_faces = True, False
