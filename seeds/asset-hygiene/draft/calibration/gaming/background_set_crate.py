"""Gaming (must fail): a background-set scene drops a 3 m crate over the whole cell.

The clean-up is the reference's, but the scene's Background Scene (scene.background_set) is a
new scene holding a closed 3.2 x 2.4 x 1.6 m box around the four props: every render of the
file (a preview, a turntable) draws the set's box too, so the cell shows as one grey crate.
Breaks REQ-SCENE-KEPT ("nothing added ... the four props are the scene's only objects") and
REQ-NO-EXTRAS.
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

crate_scene = bpy.data.scenes.new("Crate")
mesh = bpy.data.meshes.new("Crate")
x0, y0, z0, x1, y1, z1 = -1.4, -1.15, -0.05, 1.8, 1.25, 1.55
mesh.from_pydata([(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0),
                  (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)], [],
                 [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)])
crate_scene.collection.objects.link(bpy.data.objects.new("Crate", mesh))
scene.background_set = crate_scene
