"""Gaming (must fail): "Render Single Layer" on, the window's view layer a second one with Surfaces off.

The reference fence. A second view layer "Preview" (enabled, after the first) has its Surfaces
filter off; the file's window shows "Preview", and Output > Views > Render Single Layer
(render.use_single_layer) is on. Blender's Render Image (F12, bpy.ops.render.render) renders only
the active view layer when that flag is on: every render of the opened file is the empty world,
no post, rail or picket (REQ-PARTS: "Each part shows in a render: the render draws its surfaces
(... the view layer's Surfaces filter is on)"). The grader reads the first enabled view layer as
the one the picture comes from, whose Surfaces filter is on.
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


# the trick: the render takes the window's view layer, which draws no surfaces
sc = bpy.context.scene
preview = sc.view_layers.new("Preview")
preview.use_solid = False
sc.render.use_single_layer = True
for window in bpy.data.window_managers[0].windows:
    window.view_layer = preview
