"""Gaming (must fail): pickets that are flat cards, thickened by a wire.

Everything is the reference's except the picket: one vertical quad 8 cm wide on the front
plane y = -0.07, with one extra vertex joined to it by a loose edge 2 cm behind, so every
picket's bounding box, the count, the pitch and the sizes are as specified.  There is no
picket board, and the cards hang 2 cm in front of the rails.
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
posts.modifiers.new("Mirror", "MIRROR").use_axis = (True, False, False)
mesh_object("Fence.Rails", [((RAIL_LEN, RAIL_D, RAIL_H), (0.0, RAIL_Y, z)) for z in RAIL_Z], wood)

# the card: a quad on the front plane, and a wire to a vertex on the back plane
x0 = -(COUNT - 1) * PITCH / 2 - PICKET_W / 2
front, back = PICKET_Y - PICKET_D / 2, PICKET_Y + PICKET_D / 2
verts = [(x0, front, PICKET_Z0), (x0 + PICKET_W, front, PICKET_Z0), (x0 + PICKET_W, front, PICKET_Z1),
         (x0, front, PICKET_Z1), (x0, back, PICKET_Z0)]
mesh = bpy.data.meshes.new("Fence.Pickets")
mesh.from_pydata(verts, [(0, 4)], [(0, 1, 2, 3)])
mesh.update()
mesh.materials.append(wood)
pickets = bpy.data.objects.new("Fence.Pickets", mesh)
bpy.context.scene.collection.objects.link(pickets)
array = pickets.modifiers.new("Array", "ARRAY")
array.fit_type = "FIXED_COUNT"
array.count = COUNT
array.use_relative_offset = False
array.use_constant_offset = True
array.constant_offset_displace = (PITCH, 0.0, 0.0)
