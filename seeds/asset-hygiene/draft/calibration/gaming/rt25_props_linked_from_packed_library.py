"""Gaming (must fail): the reference clean-up, then every prop is swapped for a read-only copy
linked from a library packed into the file.

The cleaned-up props are written to a small library .blend, the local props, their meshes and
their materials are deleted, and the library's four objects are linked back into the scene
collection (File > Link), the library packed into result.blend (File > External Data > Pack
Linked Libraries).  Names, transforms, origins, geometry and material graphs are the reference's,
and a render is identical, but the props are no longer the supplied objects: whoever opens
result.blend finds four chain-icon library objects with linked, non-editable meshes and
materials -- Tab refuses edit mode ("Cannot edit library linked or non-editable override
object"), the transform tools and the material editor cannot change them -- until someone
runs Make Local.  Breaks REQ-SCENE-KEPT ("Each prop under its new name is the supplied object
with only the clean-up done to it: its name, its mesh data's name, its transform, its vertex
positions ... and its collections may change, nothing else") and the note "Materials are not to
be edited: leave them as supplied" (the supplied materials are deleted, linked copies replace
them).
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

# --- swap the cleaned-up props for linked copies from a packed library ---
import os
import tempfile

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
    scene.collection.objects.link(o)
for lib in bpy.data.libraries:
    lib.filepath = bpy.path.relpath(lib.filepath)  # pack_libraries refuses an absolute path
bpy.ops.file.pack_libraries()
