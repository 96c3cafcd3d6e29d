"""Gaming (must fail): the exposure jumps two stops after the first frame.

Every render setting is the reference's on frame 1001, but the film exposure is keyed 0 there
and +2 from frame 1002: a check of the first frame sees the delivery's colour settings, the farm
renders 1002-1096 two stops over.
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


def key_from_second_frame(owner, path, first_value, later_value, first=1):
    """``owner.path`` keyed ``first_value`` on the first frame, ``later_value`` from the next (constant)."""
    setattr(owner, path, first_value)
    owner.keyframe_insert(path, frame=first)
    setattr(owner, path, later_value)
    owner.keyframe_insert(path, frame=first + 1)
    anim = owner.id_data.animation_data
    from bpy_extras import anim_utils
    bag = anim_utils.action_get_channelbag_for_slot(anim.action, anim.action_slot)
    for fcurve in bag.fcurves:
        for point in fcurve.keyframe_points:
            point.interpolation = "CONSTANT"
    setattr(owner, path, first_value)


# --- the trick ------------------------------------------------------------
key_from_second_frame(scene.view_settings, "exposure", 0.0, 2.0, first=1001)
