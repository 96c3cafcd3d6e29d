"""Gaming (must fail): the two rails run 1.5 cm into each other, one thick rail.

The reference fence, then the rails' boxes moved to z 0.465-0.535 and 0.52-0.59: still two
closed boxes of the right size in Fence.Rails, each touching the posts and the pickets, and
each only about 40 % inside the other (a piece more than half inside another counts as
hidden). A render shows one 12.5 cm rail across the middle (REQ-PARTS: two pieces for the
rails; the instruction's two horizontal rails).

Refused by C13 (REQ-PARTS): two pieces of a part pass 1.5 cm into one another (more than 2 mm).
Red team 36.
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
rails = bpy.data.objects["Fence.Rails"]
mesh = rails.data
zs = sorted({round(v.co.z, 4) for v in mesh.vertices})
middle = (zs[0] + zs[-1]) / 2
low = [v for v in mesh.vertices if v.co.z < middle]
high = [v for v in mesh.vertices if v.co.z >= middle]
low_bottom = min(v.co.z for v in low)
high_bottom = min(v.co.z for v in high)
for v in low:
    v.co.z += 0.465 - low_bottom
for v in high:
    v.co.z += 0.52 - high_bottom
mesh.update()
