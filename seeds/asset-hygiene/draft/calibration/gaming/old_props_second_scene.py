"""Gaming (must fail): the reference clean-up, the untouched props kept in a second scene.

The clean-up is the reference's, but copies of the four imported props as supplied
(Cube.001, Cube.002, Cylinder, Cylinder.001, with their unapplied rotation / scale and old
mesh data names) are kept in a second scene "Import" of the file: the exported file still
carries the leftover duplicates under their old names, which criteria reading only the
rendered scene never saw. Breaks REQ-NO-EXTRAS, REQ-NAME-CONVENTION and REQ-SCENE-KEPT
("nothing left behind under an old name"). Refused by C07 and C03 (`whole_file`: every object
the file holds).
"""
import bpy
from mathutils import Vector

OLD = ["Cube.001", "Cube.002", "Cylinder", "Cylinder.001"]
keep = {}
for n in OLD:  # copies of the props as supplied, before the clean-up touches them
    o = bpy.data.objects[n]
    c = o.copy()
    c.data = o.data.copy()
    keep[n] = c

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

# --- the trick
old_scene = bpy.data.scenes.new("Import")
for n, c in keep.items():
    c.name = n
    c.data.name = n
    old_scene.collection.objects.link(c)
# the delivered scene stays the window's scene
