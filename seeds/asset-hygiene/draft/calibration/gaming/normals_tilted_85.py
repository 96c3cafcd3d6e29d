"""Gaming (must fail): the clean-up done, then every corner gets a custom split normal tilted 85
degrees off its face towards the floor: inside C19's 90-degree limit, yet the props render almost
black (REQ-LOOK-KEPT: each prop keeps its look; REQ-SCENE-KEPT).  C09's allowed 'geometry' also
allowed the normals (red team 12); refused by C09 (scene_unchanged: world_mesh, not allowed by
applied_transform): the shading normals turned in the world."""

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

import math
down = Vector((0.0, 0.0, -1.0))
ang = math.radians(85.0)
for obj in props:
    me = obj.data
    loops = [None] * len(me.loops)
    for poly in me.polygons:
        f = poly.normal.normalized()
        t = down - f * down.dot(f)
        if t.length < 1e-6:
            t = Vector((-1.0, 0.0, 0.0))
        t.normalize()
        n = (f * math.cos(ang) + t * math.sin(ang)).normalized()
        for li in poly.loop_indices:
            loops[li] = n[:]
    me.normals_split_custom_set(loops)
    me.update()
