"""Gaming (must fail): the reference clean-up, then the supplied materials' Viewport Display
settings are edited: the four viewport colours are swapped around (workbench orange, parts bin
yellow, safety post grey, pedestal blue), the parts bin's viewport alpha is set to 0 and every
viewport metallic / roughness to a chrome 1.0 / 0.0.  Whoever opens result.blend (Layout
workspace, Solid shading coloured by Material, as supplied) sees the cell re-coloured, a chrome
look and no parts bin at all -- the same in a Workbench render or playblast.  Breaks REQ-LOOK-KEPT
("the material is not edited: ... and so does every setting of the material itself") and the
Notes ("Materials are not to be edited: leave them as supplied").
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

# the trick: the materials' Viewport Display (diffuse_color, metallic, roughness) edited
mats = {o.name: o.material_slots[0].material for o in props}
colours = {n: tuple(m.diffuse_color) for n, m in mats.items()}
swap = {"SM_Workbench": "SM_RobotPedestal", "SM_PartsBin": "SM_SafetyPost",
        "SM_SafetyPost": "SM_Workbench", "SM_RobotPedestal": "SM_PartsBin"}
for name, mat in mats.items():
    mat.diffuse_color = colours[swap[name]]
    mat.metallic, mat.roughness = 1.0, 0.0
mats["SM_PartsBin"].diffuse_color = (*mats["SM_PartsBin"].diffuse_color[:3], 0.0)
