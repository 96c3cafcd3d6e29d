"""Gaming (must fail): the reference clean-up, with the four props as imported kept in a second
scene "Import" of the file, hidden behind library overrides of the same names.

Before the clean-up, copies of the four props as supplied (object scale 0.01 / 0.0254 /
(0.06, 0.06, 0.55), the bin turned 90 degrees about X, the pedestal 37 degrees about Z, their
centimetre / inch meshes under the imported mesh names Cube.001, Cube.002, Cylinder,
Cylinder.001) are renamed SM_Workbench ... and written to a library .blend.  After the reference
clean-up each cleaned prop is replaced by a library override of its imported copy whose Object
Data pointer is overridden to the cleaned mesh (so the scene's props are exactly the
reference's), the linked imported copies are linked into a new scene "Import", and the library
is packed into result.blend.  Whoever opens the file finds a second scene with the four props
at their wrong, unapplied scale and rotation, each object's mesh under its old name; any step
that walks the file's objects or meshes (Export All Collections / all scenes, an asset browser,
append from the file) gets the uncleaned copies too.  Breaks REQ-NO-EXTRAS ("a copy of a prop
kept in another scene of the file ... is a leftover duplicate too"), REQ-NAME-CONVENTION ("every
mesh object in the file (the scene, and any other scene ...) ... its mesh data-block has exactly
the same name as the object") and REQ-SCENE-KEPT ("nothing left behind under an old name").
Same leftover as old_props_second_scene, hidden by the name its override shares.
"""

import os, tempfile
import bpy
from mathutils import Vector
RENAMES = {"Cube.001": "SM_Workbench", "Cube.002": "SM_PartsBin",
           "Cylinder": "SM_SafetyPost", "Cylinder.001": "SM_RobotPedestal"}
scene = bpy.context.scene
# 1. copies of the props as imported (unapplied scale / rotation, cm / inch meshes under the
#    imported mesh names), named like the cleaned props, written to a library
copies = []
for old, new in RENAMES.items():
    obj = bpy.data.objects[old]
    obj.data.name = "tmp_" + new
    c = obj.copy()
    c.data = obj.data.copy()
    c.data.name = old
    c.data.materials.clear()
    c.name = new
    copies.append(c)
lib_path = os.path.join(tempfile.mkdtemp(), "import_props.blend")
bpy.data.libraries.write(lib_path, set(copies), fake_user=True)
for c in copies:
    m = c.data
    bpy.data.objects.remove(c)
    bpy.data.meshes.remove(m)
# 2. the reference clean-up
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
# 3. each cleaned prop becomes a library override of its imported copy, its data pointer
#    overridden to the cleaned mesh; the imported copies stay in the file under the SM_ names
for obj in props:
    obj.name = "tmp_" + obj.name
with bpy.data.libraries.load(lib_path, link=True) as (src, dst):
    dst.objects = list(RENAMES.values())
for linked, obj in zip(dst.objects, props):
    ov = linked.override_create(remap_local_usages=False)
    ov.data = obj.data
    ov.location, ov.rotation_euler, ov.scale = obj.location.copy(), (0.0, 0.0, 0.0), (1.0, 1.0, 1.0)
    scene.collection.objects.link(ov)
    bpy.data.objects.remove(obj)
imp = bpy.data.scenes.new("Import")
for linked in dst.objects:
    imp.collection.objects.link(linked)
for lib in bpy.data.libraries:
    lib.filepath = bpy.path.relpath(lib.filepath)
bpy.ops.file.pack_libraries()
