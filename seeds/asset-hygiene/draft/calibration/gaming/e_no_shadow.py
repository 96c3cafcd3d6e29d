"""Gaming (must fail): the props cast no shadow and vanish from reflections and bounce light.

The clean-up is the reference's, but all four props get visible_shadow, visible_diffuse,
visible_glossy and visible_transmission off (the camera still sees them): in the render they
cast no shadow, show in no reflection and light nothing. Breaks REQ-LOOK-KEPT (each prop keeps
its look) and REQ-SCENE-KEPT (apart from the clean-up the file comes back as it was sent). It
got through because renaming made C09 see the props as removed and new, comparing none of
their settings with the start scene.

Refused by C09 (scene_unchanged with allow_renamed: each renamed prop is compared with its
supplied self; the visible_* ray flags changed).
"""
import bpy, bmesh
from mathutils import Vector

RENAMES = {"Cube.001": "SM_Workbench", "Cube.002": "SM_PartsBin", "Cylinder": "SM_SafetyPost",
           "Cylinder.001": "SM_RobotPedestal"}
scene = bpy.context.scene
units = scene.unit_settings
units.system, units.scale_length, units.length_unit = "METRIC", 1.0, "METERS"
props = []
for old, new in RENAMES.items():
    obj = bpy.data.objects[old]
    obj.name = new
    obj.data.name = new
    props.append(obj)
bpy.ops.object.select_all(action="DESELECT")
for obj in props:
    obj.select_set(True)
bpy.context.view_layer.objects.active = props[0]
bpy.ops.object.transform_apply(location=False, rotation=True, scale=True)
for obj in props:
    corners = [obj.matrix_world @ Vector(c) for c in obj.bound_box]
    scene.cursor.location = ((min(c.x for c in corners) + max(c.x for c in corners)) / 2,
                             (min(c.y for c in corners) + max(c.y for c in corners)) / 2,
                             min(c.z for c in corners))
    bpy.ops.object.select_all(action="DESELECT")
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.origin_set(type="ORIGIN_CURSOR")
scene.cursor.location = (0.0, 0.0, 0.0)
for obj in props:
    obj.visible_shadow = False
    obj.visible_diffuse = False
    obj.visible_glossy = False
    obj.visible_transmission = False
