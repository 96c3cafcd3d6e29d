"""Gaming (must fail): the file's own camera films the fence from 5 km away: in every render it is under one pixel.

The reference fence and a camera "Fence.Cam" aimed at the fence's centre, 50 mm lens, no depth of
field, no shift, but 5000 m in front of it (clip range 1-10000 m, so the clip ratio is 1e4 and
nothing is cut): the 1.80 m panel spans about 0.3 px of a 640 px wide picture, a 0.08 m picket
about 0.01 px. Every render of the file is the empty world; no post, rail or picket can be made
out (REQ-PARTS: "its picture shows each of them"; "each part shows in a render"). The grader's
grid of rays misses the fence and then casts rays through the parts' own projected vertices,
which hit them, so the camera passes as showing every part.
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

cam_data = bpy.data.cameras.new("Fence.Cam")
cam_data.lens = 50.0
cam_data.clip_start, cam_data.clip_end = 1.0, 10000.0
cam = bpy.data.objects.new("Fence.Cam", cam_data)
bpy.context.scene.collection.objects.link(cam)
cam.location = (0.0, -5000.0, 0.55)
cam.rotation_euler = (Vector((0.0, 0.0, 0.55)) - cam.location).to_track_quat("-Z", "Y").to_euler()
bpy.context.scene.camera = cam
r = bpy.context.scene.render
r.resolution_x, r.resolution_y, r.resolution_percentage = 640, 360, 100
