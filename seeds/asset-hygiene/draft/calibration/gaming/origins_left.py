"""Gaming (must fail): origins left off the base centre of two props.

Units, names and applied rotation/scale are the reference's; the origins are not moved to the
centre of each prop's base (REQ-ORIGINS, explicitly asked in the ticket). Non-core: the rest
carries it over the bar.

Refused by C05 (origin_at, REQ-ORIGINS), core now.
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
