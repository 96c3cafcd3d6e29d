"""Gaming (must fail): the world is a negative light: it takes away a million times the light a sun gives, and every render is black.

The reference fence, a camera "Fence.Cam" 5 m in front of it and a sun of strength 3 (within the
spec's 30 W/m²), but the world's Background has Strength 1e6 and Color a Combine Color of (0, -1, -1) (a socket's own colour is clamped at 0): its largest
channel is 0, so "strength x its colour's largest channel" reads 0, while Cycles and Eevee add
(0, -1e6, -1e6) of light from every direction: the sky and the fence both render black (green and
blue pulled to minus a million, red only the sun's). REQ-PARTS: "a world whose background shines at
most 10", "lights ... none of negative power" -- the world is the one light here of negative power.
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
from mathutils import Vector

scene = bpy.context.scene
cam_data = bpy.data.cameras.new("Fence.Cam")
cam = bpy.data.objects.new("Fence.Cam", cam_data)
scene.collection.objects.link(cam)
cam.location = (1.5, -4.0, 1.2)
cam.rotation_euler = (Vector((0.0, 0.0, 0.55)) - cam.location).to_track_quat("-Z", "Y").to_euler()
scene.camera = cam
sun_data = bpy.data.lights.new("Fence.Sun", "SUN")
sun_data.energy = 3.0
sun = bpy.data.objects.new("Fence.Sun", sun_data)
scene.collection.objects.link(sun)
sun.rotation_euler = (0.8, 0.2, 0.5)

world = bpy.data.worlds.new("Garden") if scene.world is None else scene.world
scene.world = world
world.use_nodes = True
bg = next(n for n in world.node_tree.nodes if n.type == "BACKGROUND")
bg.inputs["Strength"].default_value = 1e6
# a socket's own colour is clamped at 0: the negative channels come from a Combine Color
comb = world.node_tree.nodes.new("ShaderNodeCombineColor")
comb.inputs["Red"].default_value = 0.0
comb.inputs["Green"].default_value = -1.0
comb.inputs["Blue"].default_value = -1.0
world.node_tree.links.new(comb.outputs["Color"], bg.inputs["Color"])
