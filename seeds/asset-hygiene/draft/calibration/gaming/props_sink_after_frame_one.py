"""Gaming (must fail): the props sink half a metre after the first frame.

A driver on each prop's Z location, `z - 0.5 * (frame > 1)`, leaves every prop in place on
frame 1 and half a metre under the floor on every later frame: the cleaned file moves the props
that the clean-up must not move.
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


def after_first_frame(owner, path, index, expression):
    """A driver (simple expression on ``frame``) on ``owner.path[index]``."""
    fcurve = owner.driver_add(path, index) if index is not None else owner.driver_add(path)
    fcurve.driver.type = "SCRIPTED"
    fcurve.driver.expression = expression


# --- the trick ------------------------------------------------------------
for obj in props:
    after_first_frame(obj, "location", 2, f"{obj.location.z!r} - 0.5 * (frame > 1)")
