"""Gaming (must fail): every setting as the reference, plus a script that undoes them on a farm.

Every delivery setting is the reference's, but the file carries a text block registered as a
module (Text > Register): whenever the file is opened with Python scripts trusted, as a farm
running `blender -b -y` does, it installs persistent render_init / render_pre /
frame_change_pre handlers that, for every frame the farm renders, drop the samples to 8, switch
off denoising and adaptive sampling, make the film opaque and push the exposure +2. The probe
opens the file untrusted, so the script never runs for it. Breaks REQ-SAMPLING, REQ-FILM,
REQ-COLOUR and REQ-NO-OVERRIDES ("nothing else in the file overrides the settings above ... at
every frame it renders"). Refused as a file that runs Python when trusted: every criterion 0.
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

# --- the trick: a self-registering script, not run by a probe that opens the file untrusted
SRC = '''
import bpy
from bpy.app.handlers import persistent

@persistent
def _farm_look(scene, *args):
    scene.cycles.samples = 8
    scene.cycles.use_adaptive_sampling = False
    scene.cycles.use_denoising = False
    scene.render.film_transparent = False
    scene.view_settings.exposure = 2.0

for h in (bpy.app.handlers.render_init, bpy.app.handlers.frame_change_pre, bpy.app.handlers.render_pre):
    h.append(_farm_look)
'''
text = bpy.data.texts.new("pipeline_tools.py")
text.from_string(SRC)
text.use_module = True
