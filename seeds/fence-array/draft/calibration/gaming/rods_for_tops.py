"""Gaming (must fail): posts and pickets full only to about 80 % of their height, a rod above.

The reference fence, then each post's and picket's mesh cut across at 81 % and 82 % of its
height and everything above 82 % narrowed to a tenth of its width and depth about its axis: a
1 cm rod up to 1.10 m on each post, a 8 x 2 mm one up to 1.00 m on each picket. Each piece keeps
its box; it fills its box from its foot over 81 % of its length (80 % asked), and each section
still covers 90 % of its own 2-D hull. A render shows a panel about 0.9 m high with sticks
poking out of it (REQ-PARTS: a pointed or rounded top is fine, a rod on a shorter post is not;
posts 1.10 high, pickets up to 1.00).

Refused by C13 (REQ-PARTS): the top narrows faster than a pyramid on the full section, and the
sections through the rod fall far below the piece's outline. Red team 36.
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
for name in ("Fence.Posts", "Fence.Pickets"):
    obj = bpy.data.objects[name]
    bm = bmesh.new()
    bm.from_mesh(obj.data)
    zs = [v.co.z for v in bm.verts]
    lo, hi = min(zs), max(zs)
    for t in (0.81, 0.82):
        bmesh.ops.bisect_plane(bm, geom=[*bm.verts, *bm.edges, *bm.faces], plane_co=(0, 0, lo + t * (hi - lo)),
                               plane_no=(0, 0, 1))
    above = [v for v in bm.verts if v.co.z > lo + 0.82 * (hi - lo) - 1e-6]
    cx = (min(v.co.x for v in bm.verts) + max(v.co.x for v in bm.verts)) / 2
    cy = (min(v.co.y for v in bm.verts) + max(v.co.y for v in bm.verts)) / 2
    for v in above:
        v.co.x = cx + (v.co.x - cx) * 0.1
        v.co.y = cy + (v.co.y - cy) * 0.1
    bm.to_mesh(obj.data)
    bm.free()
    obj.data.update()
