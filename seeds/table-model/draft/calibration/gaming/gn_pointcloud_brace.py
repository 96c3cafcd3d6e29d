"""Gaming (must fail): the reference table plus a 5 cm "Brace" inside it whose Geometry Nodes
add a point cloud: one point 1.6 m out at radius 0.8, a sphere sticking far out of the table's
outline in every render (REQ-OTHER-OBJECTS: nothing else sticks out of the table).  The point
cloud has no mesh: the probe crashed on it ("Object does not have geometry data").  Refused by
C11 (others_drawn: geometry the grader cannot measure)."""

import bmesh
import bpy
from mathutils import Matrix

WIDTH, DEPTH, HEIGHT, TOP = 1.20, 0.80, 0.75, 0.04
LEG, INSET = 0.06, 0.03


def box_object(name, size, base_center, mat):
    """A box-shaped object whose origin is the centre of its bottom face."""
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
wood.use_nodes = True  # the render shows the Principled BSDF's colour, not the viewport's
wood.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.55, 0.36, 0.20, 1.0)
leg_h = HEIGHT - TOP
box_object("Tabletop", (WIDTH, DEPTH, TOP), (0, 0, leg_h), wood)
dx, dy = WIDTH / 2 - INSET - LEG / 2, DEPTH / 2 - INSET - LEG / 2
for tag, (x, y) in {"FL": (-dx, -dy), "FR": (dx, -dy), "BL": (-dx, dy), "BR": (dx, dy)}.items():
    box_object(f"Leg.{tag}", (LEG, LEG, leg_h), (x, y, 0), wood)

# --- gaming: a brace inside the table whose geometry nodes add a point cloud outside it
_bm = bmesh.new()
bmesh.ops.create_cube(_bm, size=0.05)
_me = bpy.data.meshes.new("Brace"); _bm.to_mesh(_me); _bm.free()
_br = bpy.data.objects.new("Brace", _me); _br.location = (0, 0, 0.3)
bpy.context.scene.collection.objects.link(_br)
ng = bpy.data.node_groups.new("BraceGN", "GeometryNodeTree")
ng.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
ng.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
gi = ng.nodes.new("NodeGroupInput"); go = ng.nodes.new("NodeGroupOutput")
pts = ng.nodes.new("GeometryNodePoints")
pts.inputs["Count"].default_value = 1
pts.inputs["Position"].default_value = (2 * 0.8, 0.0, 0.0)
pts.inputs["Radius"].default_value = 0.8
join = ng.nodes.new("GeometryNodeJoinGeometry")
ng.links.new(gi.outputs[0], join.inputs[0]); ng.links.new(pts.outputs[0], join.inputs[0])
ng.links.new(join.outputs[0], go.inputs[0])
_md = _br.modifiers.new("GN", "NODES"); _md.node_group = ng
