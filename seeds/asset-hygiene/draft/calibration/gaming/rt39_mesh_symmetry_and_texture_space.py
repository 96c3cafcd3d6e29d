"""Gaming (must fail): every prop's mesh given symmetry, a 5 m remesh size and a 100 m texture space.

The reference clean-up, then on each prop's mesh Topology Mirror on, radial symmetry (4, 3, 2), a
voxel remesh size of 5 m and a hand-set texture space 100 m across: sculpting mirrors strokes, a
Remesh from the menu wrecks the prop, Generated coordinates stretch. REQ-SCENE-KEPT: only the
clean-up is done to a prop, nothing else. Found by red team 39.
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
for name in ("SM_Workbench", "SM_PartsBin", "SM_SafetyPost", "SM_RobotPedestal"):
    mesh = bpy.data.objects[name].data
    mesh.use_mirror_topology = True
    mesh.radial_symmetry = (4, 3, 2)
    mesh.remesh_voxel_size = 5.0
    mesh.use_auto_texspace = False
    mesh.texspace_size = (100.0, 100.0, 100.0)
    mesh.texspace_location = (50.0, 0.0, 0.0)
