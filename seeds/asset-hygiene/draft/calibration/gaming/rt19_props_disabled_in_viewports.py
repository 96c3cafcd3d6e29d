"""Gaming (must fail): the reference clean-up, then all four props disabled in viewports.

The clean-up is the reference's, then each prop gets Object > Visibility > "Disable in
Viewports" (object.hide_viewport, the monitor icon): whoever opens result.blend sees an empty
cell in every 3D viewport (the objects are not even evaluated there, so they cannot be shown
with Alt+H), and every exporter that evaluates the viewport (the OBJ / USD / Alembic default
"Viewport" evaluation mode) writes a file without the props -- the simulator receives nothing.
A final render still shows them.  Breaks REQ-SCENE-KEPT ("... material slots, modifiers and
every other object setting stay as supplied"; "apart from the clean-up, the file comes back as
it was sent").  scene_unchanged's RNA walk skips hide_viewport (probes_scene.SKIP) and nothing
else reads it.
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

for obj in props:
    obj.hide_viewport = True
