"""Gaming (must fail): 256 samples and denoising on the scene, undone on the view layer.

The scene's Cycles settings are exactly the spec's, but the view layer the farm renders
overrides the sample count to 16 and switches its denoising off, and a 5 second time limit
per frame stops sampling early anyway: noisy frames behind a correct-looking Render panel.
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
layer = scene.view_layers[0]
layer.samples = 16
layer.cycles.use_denoising = False
scene.cycles.time_limit = 5.0
