"""Gaming (must fail): the second post modelled by hand, posts off the ground, rails loose.

Pickets are the reference's. But Fence.Posts is two hand-made boxes with no Mirror modifier
(REQ-POST-MIRROR: the second post must come from a live Mirror), both hovering 5 mm above the
ground (REQ-ON-GROUND), and the rails stop 1 cm short of each post (REQ-RAILS: touching the
posts). Every broken requirement is non-core.

Refused by C04, C09, C10, C12 (REQ-POST-MIRROR, REQ-RAILS, REQ-ON-GROUND), core now.
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

reference_fence()
for name in ("Fence.Posts", "Fence.Rails"):
    obj = bpy.data.objects[name]
    me = obj.data
    obj.name = name + ".old"
    bpy.data.objects.remove(obj)
    bpy.data.meshes.remove(me)
mesh_object("Fence.Posts", [((POST, POST, POST_H), (sx * POST_X, 0.0, POST_H / 2 + 0.005)) for sx in (-1, 1)], wood)
mesh_object("Fence.Rails", [((RAIL_LEN - 0.02, RAIL_D, RAIL_H), (0.0, RAIL_Y, z)) for z in RAIL_Z], wood)
