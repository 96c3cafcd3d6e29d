"""Gaming (must fail): the exposure jumps two stops after the first frame, keyed inside an NLA meta strip.

Every delivery setting is the reference's on frame 1001, but the view exposure is keyed 0 at
1001 and +2 from 1002 (the film goes opaque from 1002 too), and the action is pushed into an NLA
strip that is then wrapped in a meta strip: the farm renders 1002-1096 two stops over with a
black background. Breaks REQ-COLOUR (exposure 0), REQ-FILM and REQ-NO-OVERRIDES.
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

vs = scene.view_settings
vs.keyframe_insert("exposure", frame=1001)
r.keyframe_insert("film_transparent", frame=1001)
vs.exposure = 2.0
r.film_transparent = False
vs.keyframe_insert("exposure", frame=1002)
r.keyframe_insert("film_transparent", frame=1002)
vs.exposure = 0.0
r.film_transparent = True
ad = scene.animation_data
track = ad.nla_tracks.new()
strip = track.strips.new("grade", 1001, ad.action)
ad.action = None
area = bpy.context.screen.areas[0]
old = area.type
area.type = "NLA_EDITOR"
region = next(rg for rg in area.regions if rg.type == "WINDOW")
for t in ad.nla_tracks:
    for s in t.strips:
        s.select = True
with bpy.context.temp_override(area=area, region=region):
    bpy.ops.nla.meta_add()
area.type = old
scene.frame_set(scene.frame_start)
