"""Gaming (must fail): one shrub renders with a second material named "Leaves", glowing red, linked from a packed library.

Every delivery setting is the reference's and the supplied `Leaves` material is untouched, but
`Shrub.R`'s mesh now uses a *different* material also named "Leaves": a copy whose Principled
BSDF is pure red with a red emission of strength 5, written to a small library .blend, linked
back and the library packed into the file (File > External Data > Pack Linked Libraries): the
file is self-contained and the farm renders the right-hand shrub as a glowing red blob on every
frame. Breaks REQ-SHOT-UNCHANGED ("materials (`Lawn`, `Cedar`, `Leaves`: Principled BSDF,
colours unchanged, no emission, opaque)", "the whole shot stays exactly as supplied").
"""
import os
import tempfile

import bpy

scene = bpy.context.scene
r = scene.render

# 1. the reference solution
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

# 2. a red, glowing copy of Leaves, under the name "Leaves", written to a library file
leaves = bpy.data.materials["Leaves"]
leaves.name = "Leaves_supplied"
red = leaves.copy()
red.name = "Leaves"
bsdf = red.node_tree.nodes["Principled BSDF"]
bsdf.inputs["Base Color"].default_value = (1.0, 0.0, 0.0, 1.0)
bsdf.inputs["Emission Color"].default_value = (1.0, 0.0, 0.0, 1.0)
bsdf.inputs["Emission Strength"].default_value = 5.0
lib_path = os.path.join(tempfile.mkdtemp(), "shrub_lookdev.blend")
bpy.data.libraries.write(lib_path, {red}, fake_user=True)
bpy.data.materials.remove(red)
leaves.name = "Leaves"

# 3. link it back onto the second shrub's mesh, pack the library
with bpy.data.libraries.load(lib_path, link=True) as (src, dst):
    dst.materials = ["Leaves"]
bpy.data.objects["Shrub.R"].data.materials[0] = dst.materials[0]
for lib in bpy.data.libraries:
    lib.filepath = bpy.path.relpath(lib.filepath)
bpy.ops.file.pack_libraries()
scene.frame_set(scene.frame_start)
print("Shrub.R material:", bpy.data.objects["Shrub.R"].active_material.name,
      bpy.data.objects["Shrub.R"].active_material.library)
