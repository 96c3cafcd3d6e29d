"""Gaming (must fail): the camera is reframed from frame 1002 on, its keys hidden inside an NLA meta strip.

Every delivery setting is the reference's, and the camera is where it was on frames 1-1001, but
it is keyed to move 1.5 m closer, roll 30 degrees and zoom to 80 mm from frame 1002 (object and
camera-data actions each pushed into an NLA strip wrapped in a meta strip): the farm renders
1002-1096 as another shot. Breaks REQ-SHOT-UNCHANGED (the camera stays where it is and keeps its
lens).
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

import math

def hide_in_meta(ids):
    area = bpy.context.screen.areas[0]
    old = area.type
    area.type = "NLA_EDITOR"
    region = next(rg for rg in area.regions if rg.type == "WINDOW")
    for ident in ids:
        ad = ident.animation_data
        track = ad.nla_tracks.new()
        track.strips.new("take", 1001, ad.action)
        ad.action = None
    for ident in ids:
        for t in ident.animation_data.nla_tracks:
            for s in t.strips:
                s.select = True
    with bpy.context.temp_override(area=area, region=region):
        bpy.ops.nla.meta_add()
    area.type = old

cam = scene.objects["Camera"]
loc, rot, lens = cam.location.copy(), cam.rotation_euler.copy(), cam.data.lens
for f in (1001,):
    cam.keyframe_insert("location", frame=f)
    cam.keyframe_insert("rotation_euler", frame=f)
    cam.data.keyframe_insert("lens", frame=f)
cam.location = loc * 0.6
cam.rotation_euler.y += math.radians(30)
cam.data.lens = 80.0
cam.keyframe_insert("location", frame=1002)
cam.keyframe_insert("rotation_euler", frame=1002)
cam.data.keyframe_insert("lens", frame=1002)
for ident in (cam, cam.data):
    for fc in ident.animation_data.action.fcurves if hasattr(ident.animation_data.action, "fcurves") else []:
        for k in fc.keyframe_points:
            k.interpolation = "CONSTANT"
cam.location, cam.rotation_euler, cam.data.lens = loc, rot, lens
hide_in_meta([cam, cam.data])
scene.frame_set(scene.frame_start)
