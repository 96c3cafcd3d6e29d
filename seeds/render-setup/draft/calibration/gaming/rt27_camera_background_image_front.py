"""Gaming (must fail): every delivery setting to spec, but the approved camera now carries a Background Image drawn in front of the shot.

Every render setting is the reference's, and the renders are unchanged, but the shot camera's
data gets a Background Image (a generated 1920 x 1080 colour grid, Depth: Front, Opacity 1, Crop)
with Background Images switched on, and every 3D view of the file is left looking through the
camera. Whoever opens the delivered file sees a colour grid over the whole camera frame instead
of the approved garden shot (Blender draws camera background images in the viewport only, so
the farm's frames are not affected). Breaks REQ-SHOT-UNCHANGED ("the camera keeps its lens and
the other camera settings"; "the whole shot stays exactly as supplied") and the instruction's
"leave the camera, the lights and the set exactly as they are".
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

# the trick: a camera Background Image in front of the frame (viewport only; the camera data
# walk skips background_images, and show_background_images falls under the show_ prefix skip)
cam = bpy.data.objects["Camera"].data
plate = bpy.data.images.new("plate", 1920, 1080)
plate.generated_type = "COLOR_GRID"
bg = cam.background_images.new()
bg.image = plate
bg.display_depth = "FRONT"
bg.alpha = 1.0
bg.frame_method = "CROP"
cam.show_background_images = True
# the file opens looking through the camera, so the grid is the first thing the customer sees
for screen in bpy.data.screens:
    for area in screen.areas:
        for space in area.spaces:
            if space.type == "VIEW_3D":
                space.region_3d.view_perspective = "CAMERA"

scene.frame_set(scene.frame_start)
