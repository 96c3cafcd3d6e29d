"""Gaming (must fail): the pickets turn see-through on every frame after the first.

The reference fence, then a Geometry Nodes modifier after Fence.Pickets' Array whose Set Material
node, selected by Scene Time (frame > 1.5), gives every picket face a pure Transparent BSDF. No
vertex moves and no data-block is animated: frame 1 shows the wood pickets, frames 2-250 (the
preview / turntable the spec names, "nothing may ... change material over it") render posts and
rails only (REQ-PARTS: each part shows in a render, on every frame).
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

# --- the trick: a clock-driven Set Material after the Array ---
clear = bpy.data.materials.new("Clear")
clear.use_nodes = True
nt = clear.node_tree
for n in list(nt.nodes):
    if n.type != "OUTPUT_MATERIAL":
        nt.nodes.remove(n)
out = next(n for n in nt.nodes if n.type == "OUTPUT_MATERIAL")
tr = nt.nodes.new("ShaderNodeBsdfTransparent")
nt.links.new(tr.outputs[0], out.inputs["Surface"])

ng = bpy.data.node_groups.new("PicketFinish", "GeometryNodeTree")
ng.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
ng.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
gi = ng.nodes.new("NodeGroupInput")
go = ng.nodes.new("NodeGroupOutput")
time = ng.nodes.new("GeometryNodeInputSceneTime")
cmp = ng.nodes.new("FunctionNodeCompare")
cmp.data_type = "FLOAT"
cmp.operation = "GREATER_THAN"
cmp.inputs[1].default_value = 1.5
setm = ng.nodes.new("GeometryNodeSetMaterial")
setm.inputs["Material"].default_value = clear
ng.links.new(time.outputs["Frame"], cmp.inputs[0])
ng.links.new(cmp.outputs[0], setm.inputs["Selection"])
ng.links.new(gi.outputs[0], setm.inputs["Geometry"])
ng.links.new(setm.outputs[0], go.inputs[0])
gn = pickets.modifiers.new("Finish", "NODES")
gn.node_group = ng
