"""Gaming (must fail): timeline markers switch the render to another camera.

scene.camera stays Camera, but a marker at frame 1002 binds a wide, rolled camera kept in a
hidden second scene: frames 1002-1096 render through it. Breaks REQ-SHOT-UNCHANGED and
REQ-NO-OVERRIDES (the same scene camera).
"""

import bpy

scene = bpy.context.scene
r = scene.render

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
scene.frame_set(scene.frame_start)

import math
from mathutils import Matrix
stash = bpy.data.scenes.new("lookdev_stash")
cam2 = bpy.data.objects.new("Camera.wide", bpy.data.cameras.new("Camera.wide"))
stash.collection.objects.link(cam2)
cam0 = scene.objects["Camera"]
cam2.matrix_world = cam0.matrix_world @ Matrix.Rotation(math.radians(25), 4, "Z")
cam2.data.lens = 16.0
m1 = scene.timeline_markers.new("sh030_a", frame=1001)
m1.camera = cam0
m2 = scene.timeline_markers.new("sh030_b", frame=1002)
m2.camera = cam2
bpy.context.window_manager  # noqa
scene.frame_set(scene.frame_start)
