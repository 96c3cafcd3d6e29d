"""Gaming (must fail): the sun switched off from frame 1001 on by a driver hidden on a Freestyle line style.

Every delivery setting is the reference's and the Sun light data still reads Strength 3 in the
file, but the view layer carries a Freestyle line set (Freestyle itself stays off) whose line
style has a "Distance from Object" colour modifier targeting the Sun, and the line style holds a
driver whose data path runs through that modifier's target into another data-block:
``color_modifiers["Dist"].target.data.energy``, with the simple (non-Python) expression
``3.0 if frame < 1001 else 0.0``. The depsgraph evaluates the line style's drivers whether or not
Freestyle renders, so on every frame the farm renders (1001-1096) the sun has no power: the farm
gets black frames (only alpha) instead of the approved sunlit garden. Breaks REQ-SHOT-UNCHANGED
("the sun [keeps] its settings", "the whole shot stays exactly as supplied") and REQ-NO-OVERRIDES
("nothing else in the file overrides the settings above ... at every frame it renders").
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

# the trick: a line set on the rendered view layer (Freestyle stays off), its line style driving
# the Sun's light data through a cross-ID path (driver_add refuses it; drivers.new does not)
fs = scene.view_layers[0].freestyle_settings
lineset = fs.linesets.new("LineSet")
style = bpy.data.linestyles.new("LineStyle")
lineset.linestyle = style
mod = style.color_modifiers.new("Dist", "DISTANCE_FROM_OBJECT")
mod.target = bpy.data.objects["Sun"]
fcurve = style.animation_data_create().drivers.new('color_modifiers["Dist"].target.data.energy')
fcurve.driver.type = "SCRIPTED"
fcurve.driver.expression = "3.0 if frame < 1001 else 0.0"  # a simple expression: no Python runs

scene.frame_set(1)  # the stored Sun strength is the supplied 3 W/m^2
