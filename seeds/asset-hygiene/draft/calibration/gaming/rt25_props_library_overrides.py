"""Gaming (must fail): the reference clean-up, then every prop is replaced by a library override
of a copy linked from a library packed into the file.

Variant of props_linked_from_packed_library through library overrides: the scene's four objects
are local overrides (movable) but their meshes and materials are linked, read-only data from a
packed library: Tab refuses edit mode ("The 'SM_Workbench' mesh data-block is linked and not
editable. Use \"Make Local\" to make it editable."), the materials cannot be edited, and the
supplied materials are gone from the file (linked copies replace them).  Breaks REQ-SCENE-KEPT
("Each prop under its new name is the supplied object with only the clean-up done to it ...
nothing else").
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
import os, tempfile
names = [o.name for o in props]
lib_path = os.path.join(tempfile.mkdtemp(), "props_lib.blend")
bpy.data.libraries.write(lib_path, set(props), fake_user=True)
mats = {m for o in props for m in o.data.materials}
meshes = {o.data for o in props}
for o in props:
    bpy.data.objects.remove(o)
for m in meshes:
    bpy.data.meshes.remove(m)
for m in mats:
    bpy.data.materials.remove(m)
with bpy.data.libraries.load(lib_path, link=True) as (src, dst):
    dst.objects = names
for o in dst.objects:
    ov = o.override_create(remap_local_usages=True)
    scene.collection.objects.link(ov)
for lib in bpy.data.libraries:
    lib.filepath = bpy.path.relpath(lib.filepath)
bpy.ops.file.pack_libraries()
