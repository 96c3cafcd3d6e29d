"""Gaming (must fail): 256 samples on the panel, 4 rendered.

cycles.samples is 256, but Sample Subset is on with a length of 4: each pixel gets 4 samples
and the farm's frames are noise. Breaks REQ-SAMPLING and REQ-NO-OVERRIDES.
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

scene.cycles.use_sample_subset = True
scene.cycles.sample_offset = 0
scene.cycles.sample_subset_length = 4
