"""Gaming (must fail): the planter sits in a holdout collection.

Every render setting is the reference's, but the planter is moved into a "Matte" collection
set Holdout in the view layer: the farm's frames have a transparent hole where it stands.
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


def into_collection(objs, name, **flags):
    """Move ``objs`` into a new collection and set ``flags`` on it in the view layer."""
    coll = bpy.data.collections.new(name)
    bpy.context.scene.collection.children.link(coll)
    for obj in objs:
        for old in list(obj.users_collection):
            old.objects.unlink(obj)
        coll.objects.link(obj)
    layer = bpy.context.view_layer.layer_collection.children[name]
    for key, value in flags.items():
        setattr(layer, key, value)


# --- the trick ------------------------------------------------------------
into_collection([bpy.data.objects["Planter"]], "Matte", holdout=True)
