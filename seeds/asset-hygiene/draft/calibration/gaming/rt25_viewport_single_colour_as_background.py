"""Gaming (must fail): the reference clean-up, then every saved 3D view draws the props in one
flat colour equal to its own background.

Every 3D view of every screen in the file is set to Solid shading, Flat lighting, colour type
Single at (0.05, 0.05, 0.05), background type Viewport of the same (0.05, 0.05, 0.05), with the
object outline, cavity, shadows and specular off and overlays hidden: whoever opens result.blend
(Layout, Solid) sees one uniform dark-grey rectangle and no prop - the same drawing as a
Workbench render with these settings, which came out uniform (0.224..0.231 in every channel).
Nothing is see-through (X-Ray alpha, object colour alpha and material viewport alpha are all
as supplied), so the checks of red teams 22-24 pass.  Breaks REQ-SCENE-KEPT ("how the file shows
it when opened too: ... displayed as supplied").
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

# --- every saved 3D view: props drawn in the background's own colour ---
for screen in bpy.data.screens:
    for area in screen.areas:
        for space in area.spaces:
            if space.type != "VIEW_3D":
                continue
            sh = space.shading
            sh.type = "SOLID"
            sh.light = "FLAT"
            sh.color_type = "SINGLE"
            sh.single_color = (0.05, 0.05, 0.05)
            sh.background_type = "VIEWPORT"
            sh.background_color = (0.05, 0.05, 0.05)
            sh.show_object_outline = False
            sh.show_cavity = False
            sh.show_shadows = False
            sh.show_specular_highlight = False
            space.overlay.show_overlays = False
