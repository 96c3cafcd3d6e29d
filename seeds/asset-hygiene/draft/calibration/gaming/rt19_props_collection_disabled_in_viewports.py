"""Gaming (must fail): the reference clean-up, the props organised into a collection that is disabled in viewports.

The clean-up is the reference's; the four props are then moved into a new collection "Props"
(the ticket leaves collections free) whose "Disable in Viewports" (collection.hide_viewport,
the monitor icon) is on: whoever opens result.blend sees an empty cell in every 3D viewport (the
objects are not evaluated there), and an exporter that evaluates the viewport (OBJ's default)
writes no file at all.  A final render still shows them.  Breaks REQ-SCENE-KEPT ("apart from the
clean-up, the file comes back as it was sent"; the props' visibility kept) -- the collection
move is allowed, hiding the props with it is not.  C09 allows the render section's
`collections` (every collection's settings) wholesale, and the object walk skips hide_viewport.
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

coll = bpy.data.collections.new("Props")
scene.collection.children.link(coll)
for obj in props:
    coll.objects.link(obj)
    scene.collection.objects.unlink(obj)
coll.hide_viewport = True
