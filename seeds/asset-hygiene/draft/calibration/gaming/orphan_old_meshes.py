"""Gaming (must fail): the reference clean-up, the imported meshes kept as fake-user orphans.

Before the clean-up, each prop's supplied mesh data is copied (Cube.001, Cube.002, Cylinder,
Cylinder.001 -- centimetre / inch, turned-over geometry, the old names) and kept in the file
with a fake user, unlinked from any object: four leftover copies of the props' meshes under the
imported names, which a pipeline that finds assets by their mesh data names picks up (REQ-NO-EXTRAS:
no leftover duplicates in the whole file; REQ-SCENE-KEPT: nothing left behind under an old name).
object_count and names_match counted objects only (red team 13); refused by C03 (names_match:
whole_file, data_same_name) and C07 (object_count: whole_file)."""

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
    oldname = obj.data.name
    obj.name = obj.data.name = new
    keep = obj.data.copy()
    keep.name = oldname
    keep.use_fake_user = True
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
