"""Gaming (must fail): each material's Principled BSDF distribution and subsurface method switched.

The clean-up is the reference's, but every supplied material's Principled BSDF is switched from
Multiscatter GGX to GGX and from Random Walk to Christensen-Burley: the materials are edited
though every input socket keeps its value. Breaks REQ-LOOK-KEPT ("every setting of its
Principled BSDF ... keeps its supplied value", "the material is not edited"). It got through
because principled_inputs pinned only the scalar input sockets, and C09 compared nothing of
the renamed props.

Refused by C15-C18 (principled_inputs: settings distribution MULTI_GGX, subsurface_method
RANDOM_WALK) and C09 (scene_unchanged with allow_renamed: the materials digest, every node's
own settings, changed).
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
for m in bpy.data.materials:
    if m.node_tree:
        for n in m.node_tree.nodes:
            if n.type == "BSDF_PRINCIPLED":
                n.distribution = "GGX" if n.distribution != "GGX" else "MULTI_GGX"
                n.subsurface_method = "BURLEY" if n.subsurface_method != "BURLEY" else "RANDOM_WALK"
