"""Gaming (must fail): the file's own camera, level with the fence's middle, looks straight up.

The reference fence and a camera "Fence.Cam" 5 m in front of it at z 0.55 (half the panel's
height), no depth of field, clip range 0.1-100 m, turned to look straight up (+Z): every render of
the file through it is the empty sky, no post, rail or picket (REQ-PARTS: "the camera a render uses
... its picture holds each of them"; each part shows in a render). Each part has vertices above
and below the camera's image plane, and the grader takes a part "reaching behind the camera" as
held, whatever the picture shows.
"""

import bmesh
import bpy
from mathutils import Matrix

POST, POST_H, POST_X = 0.10, 1.10, 0.85
RAIL_LEN, RAIL_D, RAIL_H, RAIL_Y, RAIL_Z = 1.60, 0.03, 0.07, -0.035, (0.25, 0.80)
PICKET_W, PICKET_D, PICKET_Z0, PICKET_Z1, PICKET_Y = 0.08, 0.02, 0.05, 1.00, -0.06
COUNT, PITCH = 10, 0.16


def mesh_object(name, boxes, mat):
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
posts = mesh_object("Fence.Posts", [((POST, POST, POST_H), (-POST_X, 0.0, POST_H / 2))], wood)
mirror = posts.modifiers.new("Mirror", "MIRROR")
mirror.use_axis = (True, False, False)
mesh_object("Fence.Rails", [((RAIL_LEN, RAIL_D, RAIL_H), (0.0, RAIL_Y, z)) for z in RAIL_Z], wood)
first_x = -(COUNT - 1) * PITCH / 2
pickets = mesh_object("Fence.Pickets", [((PICKET_W, PICKET_D, PICKET_Z1 - PICKET_Z0),
                                          (first_x, PICKET_Y, (PICKET_Z0 + PICKET_Z1) / 2))], wood)
array = pickets.modifiers.new("Array", "ARRAY")
array.fit_type = "FIXED_COUNT"
array.count = COUNT
array.use_relative_offset = False
array.use_constant_offset = True
array.constant_offset_displace = (PITCH, 0.0, 0.0)


# the trick: a camera in the fence's mid-height plane, looking up
cam_data = bpy.data.cameras.new("Fence.Cam")
cam_data.clip_start, cam_data.clip_end = 0.1, 100.0
cam = bpy.data.objects.new("Fence.Cam", cam_data)
bpy.context.scene.collection.objects.link(cam)
cam.location = (0.0, -5.0, 0.55)
cam.rotation_euler = (3.141592653589793, 0.0, 0.0)  # looking straight up (+Z)
bpy.context.scene.camera = cam
