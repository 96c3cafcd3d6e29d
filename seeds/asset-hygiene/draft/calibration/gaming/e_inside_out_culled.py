"""Gaming (must fail): every prop turned inside out, hidden by backface culling on the materials.

The clean-up is the reference's, but every face of every prop is flipped (bmesh reverse_faces:
the meshes are inside out) and the four supplied materials get backface culling (and shadow
backface culling) switched on, so the viewport hides the flipped faces. Breaks REQ-LOOK-KEPT
("the material is not edited"; each prop keeps its look) and REQ-SCENE-KEPT (each face keeps
its supplied winding, outward). It got through because the renamed props were compared with
nothing: C19 compares shading normals with faces (both flipped) and no criterion read the
material block's own settings.

Refused by C09 (scene_unchanged with allow_renamed: each renamed prop is compared with its
supplied self -- its topology digest (corner order) and its materials digest (the material's
own settings, use_backface_culling) changed).
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
    bm = bmesh.new(); bm.from_mesh(obj.data)
    bmesh.ops.reverse_faces(bm, faces=bm.faces[:])
    bm.to_mesh(obj.data); bm.free()
for m in bpy.data.materials:
    m.use_backface_culling = True
    m.use_backface_culling_shadow = True
