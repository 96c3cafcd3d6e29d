"""Gaming (must fail): the posts and the pickets stand on thin stilts.

The reference panel, then the modelled post rebuilt as one piece whose bottom 21 cm is a 1.2 cm
stick under the 10 x 10 cm post, and the modelled picket as one piece whose bottom 19 cm is a
1.5 cm stick under the 8 cm picket (Mirror and Array as asked): 80 % of each piece's length fills
its box, the stick's foot still meets the ground over more than 1 cm2, and the render shows the
panel hovering on twelve sticks. REQ-PARTS ("that wide from the ground up ... not a stilt under
it"), REQ-POST-MIRROR and REQ-PICKET-SIZE. Found by red team 32.
"""

# --- the reference solution (solution/solve.py) ---
import bmesh
import bpy
from mathutils import Matrix

POST, POST_H, POST_X = 0.10, 1.10, 0.85
RAIL_LEN, RAIL_D, RAIL_H, RAIL_Y, RAIL_Z = 1.60, 0.03, 0.07, -0.035, (0.25, 0.80)
PICKET_W, PICKET_D, PICKET_Z0, PICKET_Z1, PICKET_Y = 0.08, 0.02, 0.05, 1.00, -0.06
COUNT, PITCH = 10, 0.16


def mesh_object(name, boxes, mat):
    """One object made of axis-aligned boxes [(size, centre)], its origin at the world origin."""
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

# the left post; the Mirror modifier adds the right one across x = 0
posts = mesh_object("Fence.Posts", [((POST, POST, POST_H), (-POST_X, 0.0, POST_H / 2))], wood)
mirror = posts.modifiers.new("Mirror", "MIRROR")
mirror.use_axis = (True, False, False)

# two rails between the posts, flush with their front faces
mesh_object("Fence.Rails", [((RAIL_LEN, RAIL_D, RAIL_H), (0.0, RAIL_Y, z)) for z in RAIL_Z], wood)

# the first (left) picket, repeated by the Array modifier at a constant pitch
first_x = -(COUNT - 1) * PITCH / 2
pickets = mesh_object("Fence.Pickets", [((PICKET_W, PICKET_D, PICKET_Z1 - PICKET_Z0),
                                          (first_x, PICKET_Y, (PICKET_Z0 + PICKET_Z1) / 2))], wood)
array = pickets.modifiers.new("Array", "ARRAY")
array.fit_type = "FIXED_COUNT"
array.count = COUNT
array.use_relative_offset = False
array.use_constant_offset = True
array.constant_offset_displace = (PITCH, 0.0, 0.0)

# --- the trick ---
import bmesh
from mathutils import Matrix


def lofted(name, rings, mat, link=True):
    """One closed shell through rectangles [(z, cx, cy, hx, hy)], bottom to top, ends capped."""
    bm = bmesh.new()
    loops = [[bm.verts.new((cx + sx * hx, cy + sy * hy, z)) for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
             for z, cx, cy, hx, hy in rings]
    bm.faces.new(list(reversed(loops[0])))
    for a, b in zip(loops, loops[1:]):
        for i in range(4):
            bm.faces.new((a[i], a[(i + 1) % 4], b[(i + 1) % 4], b[i]))
    bm.faces.new(loops[-1])
    bmesh.ops.recalc_face_normals(bm, faces=bm.faces)
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(mat)
    obj = bpy.data.objects.new(name, mesh)
    if link:
        bpy.context.scene.collection.objects.link(obj)
    return obj


bpy.data.objects.remove(posts)
posts = lofted("Fence.Posts", [(0.0, -0.85, 0.0, 0.006, 0.006), (0.21, -0.85, 0.0, 0.006, 0.006),
                               (0.21, -0.85, 0.0, 0.05, 0.05), (1.10, -0.85, 0.0, 0.05, 0.05)], wood)
posts.modifiers.new("Mirror", "MIRROR").use_axis = (True, False, False)
bpy.data.objects.remove(pickets)
pickets = lofted("Fence.Pickets", [(0.05, first_x, -0.06, 0.0075, 0.0075), (0.24, first_x, -0.06, 0.0075, 0.0075),
                                   (0.24, first_x, -0.06, 0.04, 0.01), (1.00, first_x, -0.06, 0.04, 0.01)], wood)
array = pickets.modifiers.new("Array", "ARRAY")
array.fit_type, array.count = "FIXED_COUNT", COUNT
array.use_relative_offset, array.use_constant_offset = False, True
array.constant_offset_displace = (PITCH, 0.0, 0.0)
