"""Gaming (must fail): the reference clean-up, then the 3D view the file opens on gets a clipping
region (View > Clipping Region, Alt+B) drawn around a 2 x 2 pixel corner of the view.

Blender clips everything outside that region in Solid and Wireframe shading: whoever opens
result.blend (the Layout workspace it opens on, Solid shading as supplied)
sees an empty cell -- no prop, wherever they orbit, because the region is a fixed box in world
space -- until they find Alt+B.  The outliner lists the props as visible and enabled, and a
render is unchanged.  Breaks REQ-SCENE-KEPT ("how the file shows it when opened too: enabled in
viewports, visible in the view layer, displayed as supplied"), the customer failure of the
refused rt22_viewports_filter_out_meshes and rt23_viewports_xray_alpha_zero, reached through the
view's clipping region (RegionView3D.use_clip_planes / clip_planes), which read_opened_view does
not read.
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


# the 3D view the file opens on (the window's Layout screen): a clipping region around a 2 x 2
# pixel corner of the view (the operator Alt+B runs, with the box given)
window = bpy.context.window_manager.windows[0]
for area in window.screen.areas:
    if area.type == "VIEW_3D":
        region = next(r for r in area.regions if r.type == "WINDOW")
        with bpy.context.temp_override(window=window, area=area, region=region, space_data=area.spaces.active):
            bpy.ops.view3d.clip_border(xmin=0, xmax=2, ymin=0, ymax=2)
