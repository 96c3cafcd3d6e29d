"""Variant (should pass): the same delivery set up another way, with extras the spec allows.

Differences from the reference solution: the percentage is set before the frame size and the
end of the frame range before its start; the output path carries the .exr extension; the file
is also tuned for the farm (persistent data, 8 fixed threads, 6 light-path bounces, a 30
minute time limit per frame); and the current frame is set to the first frame of the range.
"""

import bpy

scene = bpy.context.scene
r = scene.render
cycles = scene.cycles

r.engine = "CYCLES"
cycles.use_denoising = True
cycles.use_adaptive_sampling = True
cycles.adaptive_threshold = 0.02
cycles.samples = 256
cycles.max_bounces = 6
cycles.time_limit = 1800.0
r.use_persistent_data = True
r.threads_mode, r.threads = "FIXED", 8

r.resolution_percentage = 50
r.resolution_x = 3840
r.resolution_y = 2160

scene.frame_end = 1096
scene.frame_start = 1001
scene.render.fps = 24
scene.frame_current = 1001

r.image_settings.file_format = "OPEN_EXR"
r.image_settings.exr_codec = "DWAA"
r.image_settings.color_depth = "16"
r.image_settings.color_mode = "RGBA"
r.filepath = "//renders/garden_####.exr"
r.use_file_extension = True

view = scene.view_settings
view.view_transform = "AgX"
view.look = "AgX - Medium High Contrast"
view.exposure = 0.0
view.gamma = 1.0
r.film_transparent = True
