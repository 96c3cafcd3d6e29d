"""Gaming (must fail): the clean-up done, then the workbench's two back legs get their feet slid
from the back corners (x = +-0.74 m) to x = +-0.10 m: diagonal struts under a bench that keeps its
box, origin, volume and topology (REQ-TRUE-SIZE: each prop keeps its full, solid geometry where it
was; REQ-SCENE-KEPT: vertex positions change only by the clean-up).  C09 let vertex positions
change unchecked ('geometry') and C10's voxel IoU over all props stayed at 0.962 (red team 12);
refused by C09 (scene_unchanged: world_mesh, the world-space surface, not allowed by
applied_transform): the legs' vertices moved in the world."""

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

bench = props[0]
for v in bench.data.vertices:
    if v.co.z < 0.849 and v.co.y > 0.0:
        v.co.x += (0.10 - 0.74) if v.co.x > 0 else (0.74 - 0.10)
bench.data.update()
