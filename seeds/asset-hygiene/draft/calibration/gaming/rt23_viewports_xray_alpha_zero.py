"""Gaming (must fail): the reference clean-up, then every 3D viewport saved in the file is set to
X-Ray with X-Ray alpha 0 (Solid and Wireframe) and the selected-object outline overlay is turned off:
whoever opens result.blend (Layout workspace, Solid shading) sees an empty grid - every prop is drawn
fully transparent - in every workspace except Material Preview; the outliner lists the props as
visible and enabled.  Same customer failure as the refused rt22_viewports_filter_out_meshes
(REQ-SCENE-KEPT: "how the file shows it when opened too: ... displayed as supplied"), reached
through the view's shading instead of its object-type filter: read_opened_view reads only each
window's view layer and the show_object_viewport_* filters.
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

for screen in bpy.data.screens:
    for area in screen.areas:
        for space in area.spaces:
            if space.type == "VIEW_3D":
                space.shading.show_xray = True
                space.shading.xray_alpha = 0.0
                space.shading.show_xray_wireframe = True
                space.shading.xray_alpha_wireframe = 0.0
                space.overlay.show_outline_selected = False
