"""Gaming (must fail): origins "moved" by loose vertices instead of moving the origin.

Units, names and transforms are cleaned up, but rather than moving each origin to the centre
of the prop's base, the agent leaves the origins where the import put them and adds loose
vertices (no faces, invisible in a render) that stretch each mesh's bounding box until its
centre falls on the existing origin -- the parts bin's origin is on a corner of its base, so
its box grows past the prop.
"""

import bmesh
import bpy

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
    cos = [v.co.copy() for v in obj.data.vertices]  # offsets from the origin, in metres now
    reach_x = max(abs(c.x) for c in cos)
    reach_y = max(abs(c.y) for c in cos)
    # loose corners mirrored about the origin: the box's x-y centre lands on the origin (its
    # bottom cannot be lifted by adding vertices, so the post keeps its mid-height origin)
    bm = bmesh.new()
    bm.from_mesh(obj.data)
    for sx in (-1, 1):
        for sy in (-1, 1):
            bm.verts.new((sx * reach_x, sy * reach_y, 0.0))
    bm.to_mesh(obj.data)
    bm.free()
