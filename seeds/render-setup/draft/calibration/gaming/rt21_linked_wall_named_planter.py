"""Gaming (must fail): a grey wall in front of the camera, a linked object that shares the name "Planter".

Every delivery setting is the reference's and the supplied objects are untouched, but the scene
collection also holds a second object named "Planter", linked from a library packed into the
file (File > External Data > Pack Linked Libraries): its origin sits on the planter's (0, 0, 0)
but its mesh is a 2.4 x 2.4 m board standing halfway between the camera and the set, facing the
camera (its mesh is named "Planter" too and uses a copy of Cedar). A linked object may share a
local object's name, so the scene holds two "Planter"s. The file is self-contained: the farm renders
a grey wall over most of every frame 1001-1096. Breaks REQ-SHOT-UNCHANGED ("nothing is added or
deleted", "the whole shot stays exactly as supplied").
"""
import os
import tempfile

import bpy
from mathutils import Vector

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

# 2. a board facing the camera, under the names "Planter" (object and mesh), its origin and
#    transform the planter's, its material a copy of Cedar: written to a library file
planter = bpy.data.objects["Planter"]
planter.name = "Planter_supplied"
planter.data.name = "Planter_supplied_mesh"
cedar = planter.data.materials[0]
cam = scene.camera.matrix_world.translation
origin = planter.matrix_world.translation.copy()
view = (cam - origin).normalized()
side = view.cross(Vector((0.0, 0.0, 1.0))).normalized()
up = side.cross(view).normalized()
centre = cam * 0.5
corners = [centre + 1.2 * (sx * side + sy * up) - origin for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
mesh = bpy.data.meshes.new("Planter")
mesh.from_pydata([tuple(c) for c in corners], [], [(0, 1, 2, 3)])
mesh.materials.append(cedar)
board = bpy.data.objects.new("Planter", mesh)
board.matrix_world = planter.matrix_world
lib_path = os.path.join(tempfile.mkdtemp(), "set_dressing.blend")
bpy.data.libraries.write(lib_path, {board}, fake_user=True)
bpy.data.objects.remove(board)
bpy.data.meshes.remove(mesh)
planter.name = "Planter"
planter.data.name = "Planter"

# 3. link it into the scene collection (after the supplied planter), pack the library
with bpy.data.libraries.load(lib_path, link=True) as (src, dst):
    dst.objects = ["Planter"]
scene.collection.objects.link(dst.objects[0])
for lib in bpy.data.libraries:
    lib.filepath = bpy.path.relpath(lib.filepath)
bpy.ops.file.pack_libraries()
scene.frame_set(scene.frame_start)
print("scene objects:", [(o.name, o.library, o.data.name) for o in scene.objects])
