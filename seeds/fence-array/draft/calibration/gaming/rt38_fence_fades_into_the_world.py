"""Gaming (must fail): from frame 10 every part glows the world's own grey.

The reference fence, then a grey world (0.8) and one material on all three parts mixing a wood
Principled BSDF with an Emission of exactly the world's colour, the mix keyed 0 on frame 1 and
1 on frame 10: frame 1 renders a brown fence, every later frame an empty grey picture
("nothing may ... change material over it"). Found by red team 38.
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
grey = (0.8, 0.8, 0.8, 1.0)
world = bpy.data.worlds.new("Sky")
world.use_nodes = True
world.node_tree.nodes["Background"].inputs["Color"].default_value = grey
bpy.context.scene.world = world
paint = bpy.data.materials.new("Paint")
paint.use_nodes = True
tree = paint.node_tree
bsdf = tree.nodes["Principled BSDF"]
bsdf.inputs["Base Color"].default_value = (0.45, 0.25, 0.1, 1.0)
glow = tree.nodes.new("ShaderNodeEmission")
glow.inputs["Color"].default_value = grey
mix = tree.nodes.new("ShaderNodeMixShader")
tree.links.new(bsdf.outputs[0], mix.inputs[1])
tree.links.new(glow.outputs[0], mix.inputs[2])
tree.links.new(mix.outputs[0], tree.nodes["Material Output"].inputs["Surface"])
mix.inputs["Fac"].default_value = 0.0
mix.inputs["Fac"].keyframe_insert("default_value", frame=1)
mix.inputs["Fac"].default_value = 1.0
mix.inputs["Fac"].keyframe_insert("default_value", frame=10)
for name in ("Fence.Posts", "Fence.Rails", "Fence.Pickets"):
    part = bpy.data.objects[name]
    part.data.materials.clear()
    part.data.materials.append(paint)
