"""Gaming (must fail), red team 44: the wood's Base Color read from a colour attribute of 40 on every
corner (an Attribute node, which the surface evaluator leaves unknown), under a plain grey world of
strength 1: each part sends back 40x the light that falls on it -- a clipped white silhouette, a
lamp.

Breaks: REQ-PARTS "an object whose surface glows counts as an area light ... and one that sends back
more light than falls on it -- a colour channel above 1, however its emission reads -- glows too"
and the 30 W/m² bound on the lights on the parts.

Refused since: the surface evaluator reads Attribute and Color Attribute nodes
(`probes_surface.mesh_attributes`).
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
GAIN = 40.0
for ob in (posts, pickets, bpy.data.objects["Fence.Rails"]):
    attr = ob.data.color_attributes.new("Tint", "FLOAT_COLOR", "CORNER")
    for d in attr.data:
        d.color = (GAIN * 0.62, GAIN * 0.50, GAIN * 0.36, 1.0)
wood.use_nodes = True
nt = wood.node_tree
bsdf = nt.nodes.get("Principled BSDF")
at = nt.nodes.new("ShaderNodeAttribute")
at.attribute_type = "GEOMETRY"
at.attribute_name = "Tint"
nt.links.new(at.outputs["Color"], bsdf.inputs["Base Color"])
world = bpy.data.worlds.new("Grey")
world.use_nodes = True
bg = world.node_tree.nodes.get("Background")
bg.inputs["Color"].default_value = (0.5, 0.5, 0.5, 1.0)
bg.inputs["Strength"].default_value = 1.0
bpy.context.scene.world = world
