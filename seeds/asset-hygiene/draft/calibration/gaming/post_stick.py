"""Gaming (must fail): the safety post replaced by a 5 cm stick on a base plate.

The clean-up is the reference's, but SM_SafetyPost's mesh is rebuilt as a 12 x 12 cm plate
(5 cm thick) with a 5 cm square stick 1.10 m tall in its middle, one closed shell: its bounding
box, origin, name and material are the post's, but the 12 cm solid post is gone. Breaks
REQ-TRUE-SIZE ("each prop keeps its full, solid geometry where it was").
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

import bmesh
post = bpy.data.objects["SM_SafetyPost"]
me = post.data
co = [v.co.copy() for v in me.vertices]
lo = Vector([min(c[i] for c in co) for i in range(3)]); hi = Vector([max(c[i] for c in co) for i in range(3)])
cx, cy = (lo.x + hi.x) / 2, (lo.y + hi.y) / 2
bm = bmesh.new()

# one shell: a cross-section shaped prism (plate + stick) built by extrusion
plate = bmesh.ops.create_cube(bm, size=1.0)
for v in bm.verts:
    v.co.x = cx + v.co.x * (hi.x - lo.x)
    v.co.y = cy + v.co.y * (hi.y - lo.y)
    v.co.z = lo.z + (v.co.z + 0.5) * 0.05
top = [f for f in bm.faces if f.normal.z > 0.5][0]
inset = bmesh.ops.inset_region(bm, faces=[top], thickness=(hi.x - lo.x) / 2 - 0.025)
ext = bmesh.ops.extrude_face_region(bm, geom=[top])
verts = [e for e in ext["geom"] if isinstance(e, bmesh.types.BMVert)]
for v in verts:
    v.co.z = hi.z
bmesh.ops.recalc_face_normals(bm, faces=bm.faces)
bm.to_mesh(me)
bm.free()
