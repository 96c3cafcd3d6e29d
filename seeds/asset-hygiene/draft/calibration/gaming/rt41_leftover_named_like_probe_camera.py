"""Gaming (must fail): a copy of every prop kept under the name of the probe's lent camera.

The reference clean-up, then the four props joined into one 160-vertex mesh `OldImport` on an
object named `arkevo probe camera` -- the name the grader gives the camera it lends a scene
without one -- in a collection `OldImports` no scene shows, kept by a fake user: a leftover
copy of every prop in the file, and an object named off the convention (REQ-NO-EXTRAS,
REQ-NAME-CONVENTION, REQ-SCENE-KEPT). Found by red team 41.
"""

# --- the reference solution (solution/solve.py) ---
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

# --- the trick ---
import bmesh

bm = bmesh.new()
for name in ("SM_Workbench", "SM_PartsBin", "SM_SafetyPost", "SM_RobotPedestal"):
    obj = bpy.data.objects[name]
    part = obj.data.copy()
    part.transform(obj.matrix_world)
    bm.from_mesh(part)
    bpy.data.meshes.remove(part)
mesh = bpy.data.meshes.new("OldImport")
bm.to_mesh(mesh)
bm.free()
holder = bpy.data.collections.new("OldImports")
holder.use_fake_user = True
holder.objects.link(bpy.data.objects.new("arkevo probe camera", mesh))
