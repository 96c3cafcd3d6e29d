"""Gaming (must fail): the reference clean-up, then every saved 3D view has meshes switched off
in its Object Types Selectability (SpaceView3D.show_object_select_mesh, the arrow column of the
view's "Selectability & Visibility" popover).

Whoever opens result.blend cannot click, box-select or Select All (A) any prop in any workspace's
3D view: every prop is a mesh and every view refuses meshes, so moving, checking the N panel or
"Export > Selected Objects" from the viewport selects nothing until the per-view switch is found.
The props' own Selectable switch and their collections' are untouched.  Same customer failure as
the refused rt23_props_unselectable and rt25_props_collection_unselectable (REQ-SCENE-KEPT: "every
other object setting stay as supplied - how the file shows it when opened too ..."), moved onto
the view as rt22_viewports_filter_out_meshes moved visibility: read_opened_view reads each view's
show_object_viewport_* filters, not its show_object_select_* ones, and selectable_in reads the
object and collection switches only.
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


# every 3D view of every screen: meshes unselectable in its Object Types Selectability
for screen in bpy.data.screens:
    for area in screen.areas:
        for space in area.spaces:
            if space.type == "VIEW_3D":
                space.show_object_select_mesh = False
