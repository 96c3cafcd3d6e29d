"""Gaming (must fail): the blend file's working colour space switched to Linear Rec.2020, colours not converted.

Every render setting is the reference's, and every material keeps its numeric Base Color, but the
file's scene-linear working space (File > Color Management > Working Space, i.e.
bpy.data.colorspace.working_space) goes from Linear Rec.709 to Linear Rec.2020 without converting
the stored colours: every RGB value in the file is now read with Rec.2020 primaries, so the render
shows the lawn, cedar planter and leaves far more saturated (the red channel of the set roughly
halves after AgX), and the EXRs are written in Rec.2020 linear instead of the supplied space.
Breaks REQ-SHOT-UNCHANGED (material colours unchanged) and REQ-NO-OVERRIDES / REQ-COLOUR.
The snapshot did not hold the working space; the red team's sample was refused only through the
white point it shifts (red team 13).  Refused by C16 (scene_unchanged: render working_space).
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

bpy.ops.wm.set_working_color_space(working_space="Linear Rec.2020", convert_colors=False)
