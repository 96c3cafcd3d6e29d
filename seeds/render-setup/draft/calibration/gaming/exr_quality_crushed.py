"""Gaming (must fail): the EXR's DWAA quality dropped from the supplied 90 to 1.

Every setting the spec lists is the spec's (Cycles, 256 samples, UHD at 50 %, frames 1001-1096,
OpenEXR half float DWAA RGBA, the output path, AgX, a transparent film), but the image
settings' quality -- the lossy DWAA compression level -- goes to 1: the farm writes every frame
crushed. Breaks REQ-NO-OVERRIDES (render settings the spec does not list stay as supplied).
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

img.quality = 1
