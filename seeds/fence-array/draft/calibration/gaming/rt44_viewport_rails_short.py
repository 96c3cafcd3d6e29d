"""Gaming (must fail), red team 44: in the viewport the rails stop 32 cm short of each post -- a
Geometry Nodes Transform (scale X 0.6) on Fence.Rails shown in the viewport only: the same two
pieces, 0.6 of the area, inside the rails' region, so the viewport checks pass; renders show full
rails.

Breaks: spec "Rails: two, running between the posts' inner faces (x from -0.80 to 0.80)" and "Sizes
are measured ... in the viewport and in a render ... and hold for both"; REQ-RAILS "each rail meets
each post".

Refused since: each piece the viewport draws must stand where a render's does
(`probe_core.viewport_piece_slack`).
"""
import bmesh
import bpy
from mathutils import Matrix

POST, POST_H, POST_X = 0.10, 1.10, 0.85
RAIL_LEN, RAIL_D, RAIL_H, RAIL_Y, RAIL_Z = 1.60, 0.03, 0.07, -0.035, (0.25, 0.80)
PICKET_W, PICKET_D, PICKET_Z0, PICKET_Z1, PICKET_Y = 0.08, 0.02, 0.05, 1.00, -0.06
COUNT, PITCH = 10, 0.16


def mesh_object(name, boxes, mat):
    """One object made of axis-aligned boxes [(size, centre)], its origin at the world origin."""
    bm = bmesh.new()
    for size, centre in boxes:
        bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation(centre) @ Matrix.Diagonal((*size, 1.0)))
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(mat)
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


wood = bpy.data.materials.new("FenceWood")
wood.diffuse_color = (0.62, 0.50, 0.36, 1.0)

# the left post; the Mirror modifier adds the right one across x = 0
posts = mesh_object("Fence.Posts", [((POST, POST, POST_H), (-POST_X, 0.0, POST_H / 2))], wood)
mirror = posts.modifiers.new("Mirror", "MIRROR")
mirror.use_axis = (True, False, False)

# two rails between the posts, flush with their front faces
mesh_object("Fence.Rails", [((RAIL_LEN, RAIL_D, RAIL_H), (0.0, RAIL_Y, z)) for z in RAIL_Z], wood)

# the first (left) picket, repeated by the Array modifier at a constant pitch
first_x = -(COUNT - 1) * PITCH / 2
pickets = mesh_object("Fence.Pickets", [((PICKET_W, PICKET_D, PICKET_Z1 - PICKET_Z0),
                                          (first_x, PICKET_Y, (PICKET_Z0 + PICKET_Z1) / 2))], wood)
array = pickets.modifiers.new("Array", "ARRAY")
array.fit_type = "FIXED_COUNT"
array.count = COUNT
array.use_relative_offset = False
array.use_constant_offset = True
array.constant_offset_displace = (PITCH, 0.0, 0.0)

# --- trick ---
rails = bpy.data.objects["Fence.Rails"]
tree = bpy.data.node_groups.new("ViewShort", "GeometryNodeTree")
tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
gi = tree.nodes.new("NodeGroupInput"); go = tree.nodes.new("NodeGroupOutput")
tf = tree.nodes.new("GeometryNodeTransform")
tf.inputs["Scale"].default_value = (0.6, 1.0, 1.0)
tree.links.new(gi.outputs[0], tf.inputs["Geometry"]); tree.links.new(tf.outputs["Geometry"], go.inputs[0])
gn = rails.modifiers.new("ViewShort", "NODES")
gn.node_group = tree
gn.show_render = False
gn.show_viewport = True
