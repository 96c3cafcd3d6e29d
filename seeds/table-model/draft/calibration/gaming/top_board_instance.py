"""Gaming (must fail): the top shows as a 2.0 m board through a Geometry Nodes instance.

Every part's mesh is the reference's; the Tabletop carries a Geometry Nodes modifier that joins
its own mesh with an *instance* of a 2.00 x 0.80 x 0.04 m board around it. The render shows a
2 m top overhanging the legs by 40 cm each side (REQ-TOP-SIZE, REQ-OVERALL-SIZE: 1.20 m), but
an evaluated mesh holds only the realized geometry, not the instances.

Refused by C02, C03 and C08: the instance is credited to Tabletop and measured with it (REQ-OVERALL-SIZE, REQ-TOP-SIZE, REQ-PARTS).
"""
import bmesh
import bpy
from mathutils import Matrix

WIDTH, DEPTH, HEIGHT, TOP = 1.20, 0.80, 0.75, 0.04
LEG, INSET = 0.06, 0.03


def box_mesh(name, size, mat):
    sx, sy, sz = size
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation((0, 0, sz / 2)) @ Matrix.Diagonal((sx, sy, sz, 1)))
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(mat)
    return mesh


def box_object(name, size, base_center, mat, link=True):
    obj = bpy.data.objects.new(name, box_mesh(name, size, mat))
    obj.location = base_center
    if link:
        bpy.context.scene.collection.objects.link(obj)
    return obj


wood = bpy.data.materials.new("Wood")
wood.diffuse_color = (0.55, 0.36, 0.20, 1.0)
wood.use_nodes = True
wood.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.55, 0.36, 0.20, 1.0)
leg_h = HEIGHT - TOP


def reference_table(leg_height=None, leg_base=0.0):
    box_object("Tabletop", (WIDTH, DEPTH, TOP), (0, 0, leg_h), wood)
    dx, dy = WIDTH / 2 - INSET - LEG / 2, DEPTH / 2 - INSET - LEG / 2
    for tag, (x, y) in {"FL": (-dx, -dy), "FR": (dx, -dy), "BL": (-dx, dy), "BR": (dx, dy)}.items():
        box_object(f"Leg.{tag}", (LEG, LEG, leg_height or leg_h), (x, y, leg_base), wood)

reference_table()
tree = bpy.data.node_groups.new("TopDetail", "GeometryNodeTree")
tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
gin, gout = tree.nodes.new("NodeGroupInput"), tree.nodes.new("NodeGroupOutput")
cube = tree.nodes.new("GeometryNodeMeshCube")
cube.inputs["Size"].default_value = (2.0, 0.8 + 0.002, TOP + 0.002)
move = tree.nodes.new("GeometryNodeTransform")
move.inputs["Translation"].default_value = (0, 0, TOP / 2)
setmat = tree.nodes.new("GeometryNodeSetMaterial")
setmat.inputs["Material"].default_value = wood
inst = tree.nodes.new("GeometryNodeGeometryToInstance")
join = tree.nodes.new("GeometryNodeJoinGeometry")
L = tree.links
L.new(cube.outputs["Mesh"], move.inputs["Geometry"])
L.new(move.outputs["Geometry"], setmat.inputs["Geometry"])
L.new(setmat.outputs["Geometry"], inst.inputs["Geometry"])
L.new(gin.outputs[0], join.inputs["Geometry"])
L.new(inst.outputs["Instances"], join.inputs["Geometry"])
L.new(join.outputs["Geometry"], gout.inputs[0])
mod = bpy.data.objects["Tabletop"].modifiers.new("Detail", "NODES")
mod.node_group = tree
