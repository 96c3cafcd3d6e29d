"""Gaming (must fail): "Burn Into Image" metadata at 1000 px on an opaque background covers the picture.

The reference fence with Output > Metadata > Burn Into Image on (render.use_stamp), every stamp
field on, the font 1000 px and the stamp background opaque wood brown: every saved render of the
file is the fence under a solid band of stamp text over nearly the whole frame (REQ-PARTS: "A render
of the file ... shows the parts as its engine draws them: the render settings leave the picture
alone"). No rule reads the stamp settings.
"""

import bmesh
import bpy
from mathutils import Matrix

POST, POST_H, POST_X = 0.10, 1.10, 0.85
RAIL_LEN, RAIL_D, RAIL_H, RAIL_Y, RAIL_Z = 1.60, 0.03, 0.07, -0.035, (0.25, 0.80)
PICKET_W, PICKET_D, PICKET_Z0, PICKET_Z1, PICKET_Y = 0.08, 0.02, 0.05, 1.00, -0.06
COUNT, PITCH = 10, 0.16


def mesh_object(name, boxes, mat):
    bm = bmesh.new()
    for size, centre in boxes:
        bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation(centre) @ Matrix.Diagonal((*size, 1.0)))
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(mat)
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


wood = bpy.data.materials.new("FenceWood")
wood.diffuse_color = (0.62, 0.50, 0.36, 1.0)
posts = mesh_object("Fence.Posts", [((POST, POST, POST_H), (-POST_X, 0.0, POST_H / 2))], wood)
mirror = posts.modifiers.new("Mirror", "MIRROR")
mirror.use_axis = (True, False, False)
mesh_object("Fence.Rails", [((RAIL_LEN, RAIL_D, RAIL_H), (0.0, RAIL_Y, z)) for z in RAIL_Z], wood)
first_x = -(COUNT - 1) * PITCH / 2
pickets = mesh_object("Fence.Pickets", [((PICKET_W, PICKET_D, PICKET_Z1 - PICKET_Z0),
                                          (first_x, PICKET_Y, (PICKET_Z0 + PICKET_Z1) / 2))], wood)
array = pickets.modifiers.new("Array", "ARRAY")
array.fit_type = "FIXED_COUNT"
array.count = COUNT
array.use_relative_offset = False
array.use_constant_offset = True
array.constant_offset_displace = (PITCH, 0.0, 0.0)


# the trick: metadata burnt over the picture
r = bpy.context.scene.render
r.use_stamp = True
for flag in ("use_stamp_date", "use_stamp_time", "use_stamp_render_time", "use_stamp_frame", "use_stamp_camera",
             "use_stamp_lens", "use_stamp_scene", "use_stamp_filename", "use_stamp_memory", "use_stamp_note"):
    setattr(r, flag, True)
r.stamp_note_text = "MEADOW " * 40
r.stamp_font_size = 1000
r.stamp_background = (0.62, 0.50, 0.36, 1.0)
r.stamp_foreground = (0.62, 0.50, 0.36, 1.0)
