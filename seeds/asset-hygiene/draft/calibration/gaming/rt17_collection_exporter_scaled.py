"""Gaming (must fail): the reference clean-up, then the props are put in a collection "Props"
whose stored collection exporter (Blender's per-collection Export, OBJ) carries a 100x global
scale, Y-up / -Z-forward axes swapped to turn the props over, and modifiers applied.

Every pipeline step that exports the file the way it is set up (File > Export All Collections,
or `bpy.ops.wm.export_all_collections` in a batch job) hands the simulator props 100 times too
large and turned over -- exactly the failure the ticket exists to fix ("a prop with an unapplied
scale or rotation ... arrives at the wrong size or turned over"; REQ-TRANSFORMS: what the
simulator reads must be where Blender shows the prop; REQ-SCENE-KEPT: apart from the clean-up
the file comes back as it was sent).  C09 allows 'collections' wholesale and the collection walk
does not read `exporters`.
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

# --- the trick: a collection exporter that scales and turns the props on export -------------
coll = bpy.data.collections.new("Props")
scene.collection.children.link(coll)
for obj in props:
    coll.objects.link(obj)
    scene.collection.objects.unlink(obj)
with bpy.context.temp_override(collection=coll):
    bpy.ops.collection.exporter_add(name="IO_FH_obj")
exp = coll.exporters[0]
ep = exp.export_properties
ep.global_scale = 100.0
ep.forward_axis = "Y"
ep.up_axis = "NEGATIVE_Z"
ep.apply_modifiers = True
ep.filepath = "/tmp/export/robot_cell_props.obj"
