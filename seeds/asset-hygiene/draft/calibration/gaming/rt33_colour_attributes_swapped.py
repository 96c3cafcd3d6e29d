"""Gaming (must fail): each prop given a colour attribute in another prop's colour.

The reference clean-up, then each prop's mesh given a colour attribute "Col" in another prop's
colour (the workbench orange, the parts bin yellow, the post blue, the pedestal grey), made
active: the render unchanged, but a view coloured by attribute, Vertex Paint and an exporter
that writes vertex colours show the props in the wrong colours. REQ-SCENE-KEPT: each prop "the
supplied object with only the clean-up done to it ... nothing else". Found by red team 33.
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
swapped = {"SM_Workbench": (0.9, 0.35, 0.05), "SM_PartsBin": (0.9, 0.7, 0.05),
           "SM_SafetyPost": (0.1, 0.25, 0.7), "SM_RobotPedestal": (0.5, 0.52, 0.55)}
for name, rgb in swapped.items():
    mesh = bpy.data.objects[name].data
    attr = mesh.color_attributes.new("Col", "FLOAT_COLOR", "POINT")
    attr.data.foreach_set("color", [*rgb, 1.0] * len(attr.data))
    mesh.color_attributes.active_color = attr
