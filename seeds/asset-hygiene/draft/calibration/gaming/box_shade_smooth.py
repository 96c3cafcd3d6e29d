"""Gaming (must fail): the clean-up done, then the flat-shaded workbench and parts bin are shaded
smooth: every corner normal averaged over its faces (about 55 degrees off each face, inside C19's
90), a lumpy gradient where crisp edges were (REQ-LOOK-KEPT: each prop keeps its look;
REQ-SCENE-KEPT).  C09's allowed 'geometry' also allowed the normals (red team 12); refused by C09
(scene_unchanged: world_mesh, not allowed by applied_transform): the shading normals turned in
the world."""

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

for obj in props[:2]:
    obj.data.shade_smooth()
    obj.data.update()
