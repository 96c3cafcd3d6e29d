"""Gaming (must fail): the settings to spec, and the approved camera "reframed" on the way.

Besides the delivery settings, the camera gets a wider 35 mm lens and a lens shift, is tilted
by 3 degrees and raised 0.4 mm: its origin stays within the 1 mm the location check allows,
but the approved framing is gone.
"""

import math

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
cam = scene.objects["Camera"]
cam.data.lens = 35.0
cam.data.shift_y = 0.05
cam.location.z += 0.0004
cam.rotation_euler.x += math.radians(3.0)
