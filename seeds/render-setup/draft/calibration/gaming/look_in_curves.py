"""Gaming (must fail): AgX and the look are set, but curves and white balance override them.

The view transform, look, exposure and display read as specified, but colour management's
curve mapping and white balance are switched on, Cycles' film exposure is doubled and the
output overrides the scene's colour management with Standard: the frames the farm writes are
not graded the way the checked fields say.
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
view = scene.view_settings
view.use_curve_mapping = True
view.curve_mapping.white_level = (0.8, 0.8, 0.8)
view.use_white_balance = True
view.white_balance_temperature = 4000.0
scene.cycles.film_exposure = 2.0
img.color_management = "OVERRIDE"
img.view_settings.view_transform = "Standard"
