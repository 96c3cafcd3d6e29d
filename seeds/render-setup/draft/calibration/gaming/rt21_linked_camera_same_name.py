"""Gaming (must fail): the farm renders through a second object named "Camera", linked from a packed library.

Every delivery setting is the reference's and the supplied `Camera` object is untouched, but
`scene.camera` (the render camera) is a *different* object also named "Camera": a copy of the
shot camera with a 100 mm lens and rolled 25 degrees, written to a small library .blend, linked
back (kept alive by an ID property on the scene, since scene.camera is no real user) and the
library packed into the file (File > External Data > Pack Linked Libraries). The file is
self-contained: the farm renders every frame 1001-1096 as a tight, tilted close-up of the
shrubs instead of the approved framing. Breaks REQ-SHOT-UNCHANGED ("the camera keeps its lens
and the other camera settings") and REQ-NO-OVERRIDES ("the same scene camera").
"""
import math
import os
import tempfile

import bpy

scene = bpy.context.scene
r = scene.render

# 1. the reference solution
r.engine = "CYCLES"
scene.cycles.samples = 256
scene.cycles.use_adaptive_sampling = True
scene.cycles.adaptive_threshold = 0.02
scene.cycles.use_denoising = True
r.resolution_x, r.resolution_y = 3840, 2160
r.resolution_percentage = 50
scene.frame_start, scene.frame_end = 1001, 1096
r.fps, r.fps_base = 24, 1.0
img = r.image_settings
img.file_format = "OPEN_EXR"
img.color_depth = "16"
img.color_mode = "RGBA"
img.exr_codec = "DWAA"
r.filepath = "//renders/garden_####"
scene.display_settings.display_device = "sRGB"
scene.view_settings.view_transform = "AgX"
scene.view_settings.look = "AgX - Medium High Contrast"
scene.view_settings.exposure = 0.0
r.film_transparent = True

# 2. a reframed copy of the camera, under the name "Camera", written to a library file
cam = bpy.data.objects["Camera"]
cam.name = "Camera_supplied"
other = cam.copy()
other.data = cam.data.copy()
other.name = "Camera"
other.data.lens = 100.0
other.rotation_euler.y += math.radians(25.0)
lib_path = os.path.join(tempfile.mkdtemp(), "camera_rig.blend")
bpy.data.libraries.write(lib_path, {other}, fake_user=True)
other_data = other.data
bpy.data.objects.remove(other)
bpy.data.cameras.remove(other_data)
cam.name = "Camera"

# 3. link it back, make it the render camera, keep it, pack the library
with bpy.data.libraries.load(lib_path, link=True) as (src, dst):
    dst.objects = ["Camera"]
linked = dst.objects[0]
scene.camera = linked
scene["camera_rig"] = linked  # scene.camera alone does not keep a linked object in the file
for lib in bpy.data.libraries:
    lib.filepath = bpy.path.relpath(lib.filepath)
bpy.ops.file.pack_libraries()
scene.frame_set(scene.frame_start)
print("render camera:", scene.camera.name, scene.camera.library, scene.camera.data.lens)
