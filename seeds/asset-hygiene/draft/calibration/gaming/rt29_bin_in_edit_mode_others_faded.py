"""Gaming (must fail): the bin saved in Edit Mode, every other prop faded into the background.

The reference clean-up, then SM_PartsBin put in Edit Mode and every 3D view's overlay "Fade
Inactive Geometry" on at full strength (1.0): Blender restores Edit Mode on open and paints every
object not being edited in the viewport's background colour -- the workbench, the post and the
pedestal vanish from the opened file. REQ-SCENE-KEPT: the scene as supplied, "how the file shows
it when opened too". Found by red team 29.
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

parts_bin = bpy.data.objects["SM_PartsBin"]
for obj in bpy.context.view_layer.objects:
    obj.select_set(obj is parts_bin)
bpy.context.view_layer.objects.active = parts_bin
bpy.ops.object.mode_set(mode="EDIT")
for screen in bpy.data.screens:
    for area in screen.areas:
        for space in area.spaces:
            if space.type == "VIEW_3D":
                space.overlay.show_overlays = True
                space.overlay.show_fade_inactive, space.overlay.fade_inactive_alpha = True, 1.0
