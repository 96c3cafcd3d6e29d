"""Gaming (must fail): the pickets leave the fence after frame 1, carried by a Follow Track constraint.

The reference fence, a camera "Fence.Cam" 5 m in front of it, and a Movie Clip "Survey" (a
one-frame 64 x 64 still) holding one 2D track whose marker sits on the picture's centre on frame
1 and in its top-right corner from frame 2. Fence.Pickets has a Follow Track constraint on that
track (camera Fence.Cam): on frame 1 the row stays where it is; on every later frame (a preview,
a turntable) it flies up and sideways out of the panel. No F-curve, driver or modifier follows
the clock: a constraint reading a clip's track markers moves it.
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
import os
import tempfile
from mathutils import Vector

scene = bpy.context.scene
cam_data = bpy.data.cameras.new("Fence.Cam")
cam = bpy.data.objects.new("Fence.Cam", cam_data)
scene.collection.objects.link(cam)
cam.location = (0.0, -5.0, 0.0)
cam.rotation_euler = (Vector((0.0, 0.0, 0.0)) - cam.location).to_track_quat("-Z", "Y").to_euler()
scene.camera = cam

img = bpy.data.images.new("survey", 64, 64)
path = os.path.join(tempfile.mkdtemp(), "survey_still.png")  # the clip keeps its size without the file
img.filepath_raw = path
img.file_format = "PNG"
img.save()
bpy.data.images.remove(img)
clip = bpy.data.movieclips.load(path)
clip.name = "Survey"
track = clip.tracking.tracks.new(name="Spot", frame=1)
m1 = track.markers.find_frame(1) or track.markers.insert_frame(1, co=(0.5, 0.5))
m1.co = (0.5, 0.5)
for f in (2, 3):
    m = track.markers.insert_frame(f, co=(0.95, 0.95))
    m.co = (0.95, 0.95)
scene.active_clip = clip

pickets = bpy.data.objects["Fence.Pickets"]
con = pickets.constraints.new("FOLLOW_TRACK")
con.clip = clip
con.use_active_clip = False
con.track = "Spot"
con.camera = cam
# Follow Track turns the object as the camera; keep the row upright
lim = pickets.constraints.new("LIMIT_ROTATION")
lim.use_limit_x = lim.use_limit_y = lim.use_limit_z = True
