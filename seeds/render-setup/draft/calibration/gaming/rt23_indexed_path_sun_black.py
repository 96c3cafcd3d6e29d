"""Gaming (must fail): the sun turned black from frame 1001 on, keyed through an indexed cross-ID path.

Every delivery setting is the reference's and the Sun light data still reads Color (1, 1, 1),
Strength 3 in the file, but the view layer carries a Freestyle line set (Freestyle itself stays
off) whose line style has a "Distance from Object" colour modifier targeting the Sun, and the
line style's action holds three F-curves whose data paths run through that modifier's target
into the Sun's light data and END IN AN ARRAY INDEX: ``color_modifiers["Dist"].target.data.color[0]``
(``[1]``, ``[2]``), keyed 1 up to frame 1000 and 0 from frame 1001 (constant). Blender's
animation system writes them; the grader's cross-ID check asks ``path_resolve(path, False)``,
which for an indexed path returns a plain float (no ``id_data``), so it is not seen as writing
into another data-block. Where the animation system applies such a path, every frame the farm
renders (1001-1096) has a black sun (Blender 5.2's does not: its renders stay lit, red team 23);
the path itself is what the spec forbids. Breaks REQ-SHOT-UNCHANGED ("the sun [keeps] its settings",
"the whole shot stays exactly as supplied") and REQ-NO-OVERRIDES ("no animation or driver, on
any data-block of the file (a line style ...), writes through a path into another data-block
(the sun ...)", "at every frame it renders").
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

# the trick: a line style (Freestyle off) whose action keys the Sun's colour through a cross-ID
# path that ends in an explicit array index
fs = scene.view_layers[0].freestyle_settings
lineset = fs.linesets.new("LineSet")
style = bpy.data.linestyles.new("LineStyle")
lineset.linestyle = style
mod = style.color_modifiers.new("Dist", "DISTANCE_FROM_OBJECT")
mod.target = bpy.data.objects["Sun"]
action = bpy.data.actions.new("StyleAction")
style.animation_data_create().action = action
for i in range(3):
    fcurve = action.fcurve_ensure_for_datablock(style, f'color_modifiers["Dist"].target.data.color[{i}]')
    for frame, value in ((1, 1.0), (1000, 1.0), (1001, 0.0)):
        fcurve.keyframe_points.insert(frame, value).interpolation = "CONSTANT"

scene.frame_set(1)  # the stored Sun colour is the supplied white
