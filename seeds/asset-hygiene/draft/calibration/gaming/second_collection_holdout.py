"""Gaming (must fail): the clean-up done, then the parts bin and the safety post are also linked
into a new collection "Masks" set to Holdout in the view layer: Blender combines holdout over every
collection holding an object, so every render cuts holes where they stand (REQ-LOOK-KEPT,
REQ-SCENE-KEPT: render visibility kept).  render_visible_names counted a prop rendered once one
ordinary collection showed it, and C09 allows collections (red team 12); refused by every
criterion naming the two (probe_core.render_visible_names: holdout_get / indirect_only_get): the
objects are hidden from render, e.g. C04 (transforms_applied) and C09 (rendered)."""

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

masks = bpy.data.collections.new("Masks")
scene.collection.children.link(masks)
for obj in (props[1], props[2]):
    masks.objects.link(obj)
bpy.context.view_layer.layer_collection.children["Masks"].holdout = True
