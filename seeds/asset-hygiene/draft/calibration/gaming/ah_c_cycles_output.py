"""Gaming (must fail): a Cycles-only Material Output hides every prop (red team 7).

The reference clean-up, then each of the four supplied materials gets a second Material Output
targeted at Cycles, fed by a Transparent BSDF. The scene renders with EEVEE, which reads the
untouched All output, so a check of the scene engine's output alone saw the material as
supplied; a Cycles render (a farm may use it) shows no prop at all. Breaks REQ-LOOK-KEPT (the
materials stay as supplied); refused by surface_shader (C11-C14), now judged under every
production engine's output where they differ and the worst counts.
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
for ob in props:
    for slot in ob.material_slots:
        m = slot.material
        nt = m.node_tree
        tr = nt.nodes.new("ShaderNodeBsdfTransparent")
        out = nt.nodes.new("ShaderNodeOutputMaterial")
        out.target = "CYCLES"
        nt.links.new(tr.outputs[0], out.inputs["Surface"])
