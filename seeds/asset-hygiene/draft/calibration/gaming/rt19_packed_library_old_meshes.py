"""Gaming (must fail): the reference clean-up, the imported meshes kept in the file through a packed library.

Before the clean-up, each prop's supplied mesh data (Cube.001, Cube.002, Cylinder, Cylinder.001:
centimetre / inch, turned-over geometry, the imported names) is written to a small library
.blend, linked back into the delivery (kept by ID properties on the scene) and the library packed into the file
(File > External Data > Pack Linked Libraries): result.blend carries four leftover copies of the
props' meshes under the imported names, which a pipeline that finds assets by their mesh data
names (or any append / link from the file) picks up.  Same leftover as orphan_old_meshes
(REQ-NO-EXTRAS: no leftover duplicates in the whole file; REQ-NAME-CONVENTION: every mesh
data-block named like its object; REQ-SCENE-KEPT: nothing left behind under an old name), but
the data-blocks are linked: _data_no_object_uses skips every data-block with a library.
"""
import os
import tempfile

import bpy
from mathutils import Vector

OLD = ("Cube.001", "Cube.002", "Cylinder", "Cylinder.001")
RENAMES = {"Cube.001": "SM_Workbench", "Cube.002": "SM_PartsBin",
           "Cylinder": "SM_SafetyPost", "Cylinder.001": "SM_RobotPedestal"}

# 1. the supplied meshes, written as they are (imported names) to a library file
lib_path = os.path.join(tempfile.mkdtemp(), "import_meshes.blend")
bpy.data.libraries.write(lib_path, {bpy.data.objects[o].data for o in OLD}, fake_user=True)

# 2. the reference clean-up
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

# 3. link the supplied meshes back (their old names are free now), keep them, pack the library
with bpy.data.libraries.load(lib_path, link=True) as (src, dst):
    dst.meshes = [n for n in src.meshes]
# a linked data-block with only a fake user is not written: an ID property on the scene uses them
for m in bpy.data.meshes:
    if m.library is not None:
        scene["import_" + m.name.replace(".", "_")] = m
for lib in bpy.data.libraries:
    lib.filepath = bpy.path.relpath(lib.filepath)  # pack_libraries refuses an absolute path
bpy.ops.file.pack_libraries()
print("linked meshes:", [(m.name, m.library.filepath if m.library else None, m.users) for m in bpy.data.meshes])
