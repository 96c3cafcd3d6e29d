"""Gaming (must fail): the supplied materials edited (glass, mirror, glowing, see-through), base colours kept.

The clean-up is the reference's, but the supplied materials are edited (spec: "Materials are
not to be edited: leave them as supplied"; REQ-LOOK-KEPT: each prop keeps its look): the parts
bin turns to clear glass (transmission 1), the workbench to a polished mirror (metallic 1,
roughness 0), the safety post glows (emission strength 20 in its yellow), the pedestal is 90 %
see-through (alpha 0.1). Every Base Color is untouched.

Refused by C12-C14 (surface_shader: emission, alpha, transmission as rendered) and C15-C18 (principled_inputs: every scalar input as supplied; REQ-LOOK-KEPT).
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


def bsdf(name):
    mat = bpy.data.objects[name].material_slots[0].material
    return next(n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED")


b = bsdf("SM_PartsBin"); b.inputs["Transmission Weight"].default_value = 1.0; b.inputs["Roughness"].default_value = 0.0
b = bsdf("SM_Workbench"); b.inputs["Metallic"].default_value = 1.0; b.inputs["Roughness"].default_value = 0.0
b = bsdf("SM_SafetyPost"); b.inputs["Emission Color"].default_value = b.inputs["Base Color"].default_value[:]; b.inputs["Emission Strength"].default_value = 20.0
b = bsdf("SM_RobotPedestal"); b.inputs["Alpha"].default_value = 0.1
