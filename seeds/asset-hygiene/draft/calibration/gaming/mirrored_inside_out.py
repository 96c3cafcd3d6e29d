"""Gaming (must fail): the clean-up done, then each prop's vertex positions are mirrored through its
centre plane (local x -> -x) with the face corners kept in order: same box, origin and volume for
these symmetric props, but every face now points inward (REQ-SCENE-KEPT: every face still points
outward, as supplied).  The topology digest is unchanged, 'geometry' was allowed and C19 compares
flipped normals with equally flipped faces (red team 12); refused by C09 (scene_unchanged:
world_mesh, not allowed by applied_transform): the vertices moved in the world."""

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

for obj in props:
    me = obj.data
    for v in me.vertices:
        v.co.x = -v.co.x
    me.update()
