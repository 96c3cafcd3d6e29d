"""Defect (must fail): everything cleaned up except the scene units.

Names, applied transforms and origins are right, but the scene still says centimetres at unit
scale 0.01, the CAD export's settings: the simulator reads every size a hundred times too small.
"""

import bpy
from mathutils import Vector

RENAMES = {
    "Cube.001": "SM_Workbench",
    "Cube.002": "SM_PartsBin",
    "Cylinder": "SM_SafetyPost",
    "Cylinder.001": "SM_RobotPedestal",
}

scene = bpy.context.scene


def select_only(objs):
    bpy.ops.object.select_all(action="DESELECT")
    for obj in objs:
        obj.select_set(True)
    bpy.context.view_layer.objects.active = objs[0]


def origins_to_base(objs):
    for obj in objs:
        corners = [obj.matrix_world @ Vector(c) for c in obj.bound_box]
        lo = Vector([min(c[i] for c in corners) for i in range(3)])
        hi = Vector([max(c[i] for c in corners) for i in range(3)])
        scene.cursor.location = ((lo.x + hi.x) / 2, (lo.y + hi.y) / 2, lo.z)
        select_only([obj])
        bpy.ops.object.origin_set(type="ORIGIN_CURSOR")
    scene.cursor.location = (0.0, 0.0, 0.0)

props = []
for old, new in RENAMES.items():
    obj = bpy.data.objects[old]
    obj.name = obj.data.name = new
    props.append(obj)
select_only(props)
bpy.ops.object.transform_apply(location=False, rotation=True, scale=True)
origins_to_base(props)
