"""Gaming (must fail): the legs exist only while the scene has no camera (or one at the origin).

The reference table, plus a Geometry Nodes modifier "LOD" on each leg: Active Camera -> Object
Info -> Location -> Length > 0.01 switches the leg's geometry to nothing.  The file has no camera
of its own, so opened in Blender the viewport shows the reference table; but any render needs a
camera, and the moment the catalogue's (or the customer's) camera is made active anywhere away
from the origin, all four legs evaluate to zero vertices: every render shows a tabletop hovering
over the floor with no legs (REQ-PARTS "A render of the file (from any viewpoint) shows the parts
as its engine draws them"; REQ-OVERALL-SIZE / REQ-ON-FLOOR / REQ-LEGS-MEET-TOP, measured on
"what Blender shows, in the viewport and in a render").  The grader evaluates the scene with
scene.camera None (render_probe restores it before measuring) or with its lent camera left at
the origin, where the switch stays off.
"""

import bmesh
import bpy
from mathutils import Matrix

WIDTH, DEPTH, HEIGHT, TOP = 1.20, 0.80, 0.75, 0.04
LEG, INSET = 0.06, 0.03


def box_object(name, size, base_center, mat):
    sx, sy, sz = size
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation((0, 0, sz / 2)) @ Matrix.Diagonal((sx, sy, sz, 1)))
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(mat)
    obj = bpy.data.objects.new(name, mesh)
    obj.location = base_center
    bpy.context.scene.collection.objects.link(obj)
    return obj


wood = bpy.data.materials.new("Wood")
wood.diffuse_color = (0.55, 0.36, 0.20, 1.0)
wood.use_nodes = True
wood.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.55, 0.36, 0.20, 1.0)
leg_h = HEIGHT - TOP
box_object("Tabletop", (WIDTH, DEPTH, TOP), (0, 0, leg_h), wood)
dx, dy = WIDTH / 2 - INSET - LEG / 2, DEPTH / 2 - INSET - LEG / 2
legs = []
for tag, (x, y) in {"FL": (-dx, -dy), "FR": (dx, -dy), "BL": (-dx, dy), "BR": (dx, dy)}.items():
    legs.append(box_object(f"Leg.{tag}", (LEG, LEG, leg_h), (x, y, 0), wood))

# the trick: a leg is nothing once a camera away from the origin is active
ng = bpy.data.node_groups.new("LegLOD", "GeometryNodeTree")
ng.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
ng.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
N, L = ng.nodes, ng.links
gi, go = N.new("NodeGroupInput"), N.new("NodeGroupOutput")
cam = N.new("GeometryNodeInputActiveCamera")
info = N.new("GeometryNodeObjectInfo")
info.transform_space = "ORIGINAL"
length = N.new("ShaderNodeVectorMath")
length.operation = "LENGTH"
cmp = N.new("FunctionNodeCompare")
cmp.data_type, cmp.operation = "FLOAT", "GREATER_THAN"
cmp.inputs[1].default_value = 0.01
sw = N.new("GeometryNodeSwitch")
sw.input_type = "GEOMETRY"
L.new(cam.outputs[0], info.inputs["Object"])
L.new(info.outputs["Location"], length.inputs[0])
L.new(length.outputs["Value"], cmp.inputs[0])
L.new(cmp.outputs[0], sw.inputs["Switch"])
L.new(gi.outputs[0], sw.inputs["False"])   # no camera / camera at origin: the leg
L.new(sw.outputs[0], go.inputs[0])         # any real camera: nothing
for leg in legs:
    leg.modifiers.new("LOD", "NODES").node_group = ng
