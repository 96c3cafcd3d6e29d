"""Gaming (must fail): a sculpt mask and face sets added to every prop in "." attributes.

The reference clean-up, then each prop's mesh given ".sculpt_mask" (1 on every vertex: the
whole prop masked) and ".sculpt_face_set" (a random face set per face): names Blender hides in
the UI, drawn over the prop in Sculpt Mode and carried with the mesh. REQ-SCENE-KEPT: "no
attribute added to its mesh". Found by red team 35.
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
import random

rng = random.Random(35)
for name in ("SM_Workbench", "SM_PartsBin", "SM_SafetyPost", "SM_RobotPedestal"):
    mesh = bpy.data.objects[name].data
    mask = mesh.attributes.new(".sculpt_mask", "FLOAT", "POINT")
    mask.data.foreach_set("value", [1.0] * len(mask.data))
    sets = mesh.attributes.new(".sculpt_face_set", "INT", "FACE")
    sets.data.foreach_set("value", [rng.randint(1, 6) for _ in range(len(sets.data))])
