"""Gaming (must fail), red team 45: Attack (letter of the spec): a custom-normal attribute added to
every prop's mesh.

The reference clean-up, then each prop's mesh gets custom split normals set to the normals it
already shades with (so nothing renders differently): Blender adds a "custom_normal" attribute to
every mesh and locks the shading to it (an edit to the geometry later keeps the stale normals).
Breaks REQ-SCENE-KEPT: "no attribute added to its mesh, a colour attribute included".

Found by red team 45; refused since: a kept mesh's attribute digest holds which shading layers it
has (`SNAPSHOT_VERSION` 18).
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
for obj in props:
    me = obj.data
    normals = [tuple(c.vector) for c in me.corner_normals]
    me.normals_split_custom_set(normals)
    print(obj.name, [a.name for a in me.attributes])
