"""Gaming (must fail): a vertex group added to every prop.

The reference clean-up, then each of the four props given a vertex group "Col", every vertex
weighted by its height: the render unchanged, but each prop's mesh carries a weight layer it
was not sent with, which an exporter writes and a modifier reads. REQ-SCENE-KEPT: each prop is
the supplied object with only the clean-up done to it, nothing else. Found by red team 37.
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
for obj in bpy.context.scene.objects:
    if obj.type == "MESH":
        group = obj.vertex_groups.new(name="Col")
        for v in obj.data.vertices:
            group.add([v.index], min(1.0, abs(v.co.z)), "REPLACE")
