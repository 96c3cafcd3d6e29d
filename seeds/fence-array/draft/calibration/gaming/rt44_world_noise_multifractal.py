"""Gaming (must fail), red team 44: a world that shines at thousands -- the Background's Color linked
straight from a Noise Texture's Fac, Multifractal with Detail 15 and Lacunarity 1 (every octave at
one frequency: the product (1 + n)^16 runs into the thousands), Strength 1. The world check reads a
procedural texture without colour inputs as 1 at most; the render is a blown-out white sky over a
white silhouette.

Breaks: REQ-PARTS "a world whose background shines at most 10: strength x its colour's largest
channel (a colour linked from other nodes as they make it)".

Refused since: only textures whose outputs stay within 0..1 are read as their colour inputs
(`probes_scene.BOUNDED_TEXTURES`).
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
world = bpy.data.worlds.new("Sky")
world.use_nodes = True
wt = world.node_tree
bg = wt.nodes.get("Background")
bg.inputs["Strength"].default_value = 1.0
nz = wt.nodes.new("ShaderNodeTexNoise")
nz.noise_type = "MULTIFRACTAL"
nz.normalize = False
nz.inputs["Scale"].default_value = 3.0
nz.inputs["Detail"].default_value = 15.0
nz.inputs["Roughness"].default_value = 1.0
nz.inputs["Lacunarity"].default_value = 1.0
wt.links.new(nz.outputs["Fac"], bg.inputs["Color"])
bpy.context.scene.world = world
