"""Gaming (must fail): the reference clean-up, then the parts bin becomes an active rigid body.

The clean-up is the reference's; SM_PartsBin is added to a new Rigid Body World (active, dynamic,
gravity on) and nothing else is a collider: on frame 1 it stands on the bench, but when the scene
is played or rendered frame after frame (a preview, a turntable) it falls through the bench and
out of the cell.  Nothing is keyed or driven on the object.  Breaks REQ-TRUE-SIZE / REQ-SCENE-KEPT
("nothing may move ... over it", every frame 1-250) and REQ-SCENE-KEPT (every other object
setting stays as supplied).  Red team 15: refused by C09 (scene_unchanged: the walked object
property rigid_body changed from the start scene).
"""
import bpy
from mathutils import Vector

RENAMES = {"Cube.001": "SM_Workbench", "Cube.002": "SM_PartsBin", "Cylinder": "SM_SafetyPost",
           "Cylinder.001": "SM_RobotPedestal"}
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

# the trick: a dynamic rigid body, no keyframes, no drivers
bin_ = bpy.data.objects["SM_PartsBin"]
bpy.ops.object.select_all(action="DESELECT")
bin_.select_set(True)
bpy.context.view_layer.objects.active = bin_
bpy.ops.rigidbody.object_add(type="ACTIVE")
scene.rigidbody_world.point_cache.frame_start = 1
scene.rigidbody_world.point_cache.frame_end = 250
