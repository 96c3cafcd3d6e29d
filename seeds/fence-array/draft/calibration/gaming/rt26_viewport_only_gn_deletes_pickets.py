"""Gaming (must fail): the file opens with two pickets: a viewport-only Geometry Nodes modifier deletes the middle eight.

The reference fence, then a Geometry Nodes modifier after Fence.Pickets' Array, shown in the
viewport and not in renders (show_render off), whose Delete Geometry removes every point with
|x| < 0.64: opening the file (the configurator's viewport, any viewport-based preview or export
that evaluates viewport modifiers) shows the two end pickets only, a 1.2 m gap between them.
Renders show ten. The spec: "Sizes are measured on ... what Blender shows, in the viewport and
in a render ... and hold for both"; REQ-PICKET-PITCH "Fence.Pickets shows exactly 10 separate
pickets". The row's bounding box is unchanged (the end pickets stay), so the viewport's AABB
agrees with the render's.
"""

# --- the reference solution (solution/solve.py) ---
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

# --- the trick ---
import bpy

pickets = bpy.data.objects["Fence.Pickets"]
tree = bpy.data.node_groups.new("PicketTidy", "GeometryNodeTree")
tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
nodes, links = tree.nodes, tree.links
gin = nodes.new("NodeGroupInput")
gout = nodes.new("NodeGroupOutput")
pos = nodes.new("GeometryNodeInputPosition")
sep = nodes.new("ShaderNodeSeparateXYZ")
absx = nodes.new("ShaderNodeMath"); absx.operation = "ABSOLUTE"
less = nodes.new("ShaderNodeMath"); less.operation = "LESS_THAN"; less.inputs[1].default_value = 0.64
delete = nodes.new("GeometryNodeDeleteGeometry"); delete.domain = "POINT"
links.new(pos.outputs["Position"], sep.inputs[0])
links.new(sep.outputs["X"], absx.inputs[0])
links.new(absx.outputs[0], less.inputs[0])
links.new(gin.outputs[0], delete.inputs["Geometry"])
links.new(less.outputs[0], delete.inputs["Selection"])
links.new(delete.outputs[0], gout.inputs[0])
mod = pickets.modifiers.new("Tidy", "NODES")
mod.node_group = tree
mod.show_render = False
mod.show_viewport = True
