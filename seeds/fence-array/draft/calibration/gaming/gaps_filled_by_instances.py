"""Gaming (must fail): the gaps between the pickets filled by an instanced copy of the picket row.

The reference panel, plus a Geometry Nodes modifier on Fence.Pickets after the Array: it joins
the arrayed row with an *instance* of that row moved half a pitch (0.08 m) along X. The render
shows 19 pickets edge to edge with no gap (REQ-PICKET-PITCH: exactly 10 pickets, 0.16 m apart,
every gap 0.08 wide); the evaluated mesh the probe reads holds only the ten arrayed ones.

Refused by C03, C07, C11, C13: the instances are credited to Fence.Pickets (REQ-PICKET-PITCH, REQ-PICKET-SIZE, REQ-PICKET-ARRAY, REQ-PARTS).
"""
import bmesh
import bpy
from mathutils import Matrix

POST, POST_H, POST_X = 0.10, 1.10, 0.85
RAIL_LEN, RAIL_D, RAIL_H, RAIL_Y, RAIL_Z = 1.60, 0.03, 0.07, -0.035, (0.25, 0.80)
PICKET_W, PICKET_D, PICKET_Z0, PICKET_Z1, PICKET_Y = 0.08, 0.02, 0.05, 1.00, -0.06
COUNT, PITCH = 10, 0.16


def mesh_object(name, boxes, mat, link=True):
    """One object made of axis-aligned boxes [(size, centre)], its origin at the world origin."""
    bm = bmesh.new()
    for size, centre in boxes:
        bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation(centre) @ Matrix.Diagonal((*size, 1.0)))
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(mat)
    obj = bpy.data.objects.new(name, mesh)
    if link:
        bpy.context.scene.collection.objects.link(obj)
    return obj


wood = bpy.data.materials.new("FenceWood")
wood.diffuse_color = (0.62, 0.50, 0.36, 1.0)


def reference_fence():
    posts = mesh_object("Fence.Posts", [((POST, POST, POST_H), (-POST_X, 0.0, POST_H / 2))], wood)
    posts.modifiers.new("Mirror", "MIRROR").use_axis = (True, False, False)
    mesh_object("Fence.Rails", [((RAIL_LEN, RAIL_D, RAIL_H), (0.0, RAIL_Y, z)) for z in RAIL_Z], wood)
    first_x = -(COUNT - 1) * PITCH / 2
    pickets = mesh_object("Fence.Pickets", [((PICKET_W, PICKET_D, PICKET_Z1 - PICKET_Z0),
                                              (first_x, PICKET_Y, (PICKET_Z0 + PICKET_Z1) / 2))], wood)
    array = pickets.modifiers.new("Array", "ARRAY")
    array.fit_type = "FIXED_COUNT"
    array.count = COUNT
    array.use_relative_offset = False
    array.use_constant_offset = True
    array.constant_offset_displace = (PITCH, 0.0, 0.0)
    return posts, pickets


def gn_tree(name):
    tree = bpy.data.node_groups.new(name, "GeometryNodeTree")
    tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    return tree, tree.nodes.new("NodeGroupInput"), tree.nodes.new("NodeGroupOutput")

posts, pickets = reference_fence()
tree, gin, gout = gn_tree("PicketInfill")
move = tree.nodes.new("GeometryNodeTransform")
move.inputs["Translation"].default_value = (PITCH / 2, 0.0, 0.0)
inst = tree.nodes.new("GeometryNodeGeometryToInstance")
join = tree.nodes.new("GeometryNodeJoinGeometry")
L = tree.links
L.new(gin.outputs[0], move.inputs["Geometry"])
L.new(move.outputs["Geometry"], inst.inputs["Geometry"])
L.new(gin.outputs[0], join.inputs["Geometry"])
L.new(inst.outputs["Instances"], join.inputs["Geometry"])
L.new(join.outputs["Geometry"], gout.inputs[0])
pickets.modifiers.new("Infill", "NODES").node_group = tree
