"""Gaming (must fail): a background-set scene puts a wall in front of the camera.

Every delivery setting is the reference's, but the scene's Background Scene (scene.background_set)
is a new scene holding a 6 x 6 m grey board between the camera and the planter: a render of the
shot draws the set's objects too, so the farm renders a grey wall. Breaks REQ-SHOT-UNCHANGED
("nothing is added") and REQ-NO-OVERRIDES.
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

plate = bpy.data.scenes.new("Plate")
mesh = bpy.data.meshes.new("Board")
s = 3.0
mesh.from_pydata([(-s, -0.05, -s), (s, -0.05, -s), (s, 0.05, -s), (-s, 0.05, -s),
                  (-s, -0.05, s), (s, -0.05, s), (s, 0.05, s), (-s, 0.05, s)], [],
                 [(0, 1, 2, 3), (4, 7, 6, 5), (0, 4, 5, 1), (1, 5, 6, 2), (2, 6, 7, 3), (3, 7, 4, 0)])
board = bpy.data.objects.new("Board", mesh)
plate.collection.objects.link(board)
cam = scene.objects["Camera"]
mid = cam.matrix_world.translation * 0.5
board.location = mid
board.rotation_euler = cam.matrix_world.to_euler()
board.rotation_euler.x += 1.5708
scene.background_set = plate
