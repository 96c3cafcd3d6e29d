"""Gaming (must fail): rails that stop after 30 cm, their length kept by a speck.

Both rails are cut to 30 cm from the left post; the rail object also holds a 2 mm cube at the
right end of the top rail, so its bounding box is the full 1.60 m. The rails no longer reach the
right post, and the pickets on the right hang in the air.
"""

import bmesh
import bpy
from mathutils import Matrix, Vector

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


def world_mesh(obj):
    """(world vertices, faces) of ``obj``."""
    return [obj.matrix_world @ v.co for v in obj.data.vertices], [tuple(p.vertices) for p in obj.data.polygons]


def set_world_mesh(obj, verts, faces):
    inv = obj.matrix_world.inverted()
    mesh = bpy.data.meshes.new(obj.data.name)
    mesh.from_pydata([tuple(inv @ v) for v in verts], [], faces)
    for mat in obj.data.materials:
        mesh.materials.append(mat)
    obj.data = mesh


CUBE = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]


def corners(lo, hi):
    return [Vector((x, y, z)) for x in (lo.x, hi.x) for y in (lo.y, hi.y) for z in (lo.z, hi.z)]


# --- the trick ------------------------------------------------------------
rails = bpy.data.objects["Fence.Rails"]
verts, faces = world_mesh(rails)
left = min(v.x for v in verts)
right = max(v.x for v in verts)
cut = [Vector((left + (v.x - left) * 0.30 / RAIL_LEN, v.y, v.z)) for v in verts]
top = max(v.z for v in verts)
speck = corners(Vector((right - 0.002, RAIL_Y - 0.001, top - 0.002)), Vector((right, RAIL_Y + 0.001, top)))
set_world_mesh(rails, cut + speck, faces + [tuple(i + len(cut) for i in f) for f in CUBE])
