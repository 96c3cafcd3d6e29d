"""Gaming (must fail): every delivery setting to spec, and the farm job quietly made cheaper.

A render border crops the output to the centre of the frame and the frame step renders only
every other frame of 1001-1096: the checked frame size, percentage and range still read
right, but the farm delivers half the frames, each a cropped 960 x 540 patch.
"""

import bpy

scene = bpy.context.scene
r = scene.render
img = r.image_settings


def delivery_settings():
    """The reference settings, to the letter of the spec."""
    r.engine = "CYCLES"
    scene.cycles.samples = 256
    scene.cycles.use_adaptive_sampling = True
    scene.cycles.adaptive_threshold = 0.02
    scene.cycles.use_denoising = True
    r.resolution_x, r.resolution_y, r.resolution_percentage = 3840, 2160, 50
    scene.frame_start, scene.frame_end = 1001, 1096
    r.fps, r.fps_base = 24, 1.0
    img.file_format = "OPEN_EXR"
    img.color_depth, img.color_mode, img.exr_codec = "16", "RGBA", "DWAA"
    r.filepath = "//renders/garden_####"
    scene.view_settings.view_transform = "AgX"
    scene.view_settings.look = "AgX - Medium High Contrast"
    scene.view_settings.exposure = 0.0
    r.film_transparent = True


delivery_settings()
r.use_border, r.use_crop_to_border = True, True
r.border_min_x, r.border_max_x, r.border_min_y, r.border_max_y = 0.25, 0.75, 0.25, 0.75
scene.frame_step = 2
