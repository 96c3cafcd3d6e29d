"""Gaming (must fail): only the critical checklist items done; the other six skipped.

Engine Cycles, a 3840 x 2160 frame, frames 1001-1096 and the EXR output format are set (every
*critical* item), nothing else: the review pass renders at 100 % (UHD, not 1920 x 1080), at the
look-dev fps, with the look-dev samples, colour settings and output path, and an opaque film.
Breaks REQ-SAMPLING, REQ-REVIEW-SCALE, REQ-FPS, REQ-OUTPUT-PATH, REQ-COLOUR and REQ-FILM.
"""
import bpy

scene = bpy.context.scene
r = scene.render
r.engine = "CYCLES"
r.resolution_x, r.resolution_y = 3840, 2160
r.resolution_percentage = 100
scene.frame_start, scene.frame_end = 1001, 1096
img = r.image_settings
img.file_format = "OPEN_EXR"
img.color_depth = "16"
img.color_mode = "RGBA"
img.exr_codec = "DWAA"
scene.frame_set(scene.frame_start)
