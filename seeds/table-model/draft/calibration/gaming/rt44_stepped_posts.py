"""Gaming: two more wooden legs under the middle of the long sides, each a column of three 4 cm blocks
from the floor to the top's underside, each block stepped 5.1 cm diagonally (X and Y) from the last
with 1.1 cm vertical gaps: seen along the diagonal each reads as one post. REQ-OTHER-OBJECTS:
'nothing else stands under the top ... more legs, posts, a panel or a cabinet between the legs do
not [fit]'.

Found by red team 44; refused since: under_stays_open counts what lies within 10 cm of a vertical
line, and looks from every horizontal direction.
"""

import bmesh
import bpy
from mathutils import Matrix

WIDTH, DEPTH, HEIGHT, TOP = 1.20, 0.80, 0.75, 0.04
LEG, INSET = 0.06, 0.03


def box_object(name, size, base_center, mat):
    """A box-shaped object whose origin is the centre of its bottom face."""
    sx, sy, sz = size
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation((0, 0, sz / 2)) @ Matrix.Diagonal((sx, sy, sz, 1)))
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(mat)
    obj = bpy.data.objects.new(name, mesh)
    obj.location = base_center
    bpy.context.scene.collection.objects.link(obj)
    return obj


wood = bpy.data.materials.new("Wood")
wood.diffuse_color = (0.55, 0.36, 0.20, 1.0)
wood.use_nodes = True  # the render shows the Principled BSDF's colour, not the viewport's
wood.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.55, 0.36, 0.20, 1.0)
leg_h = HEIGHT - TOP
box_object("Tabletop", (WIDTH, DEPTH, TOP), (0, 0, leg_h), wood)
dx, dy = WIDTH / 2 - INSET - LEG / 2, DEPTH / 2 - INSET - LEG / 2
for tag, (x, y) in {"FL": (-dx, -dy), "FR": (dx, -dy), "BL": (-dx, dy), "BR": (dx, dy)}.items():
    box_object(f"Leg.{tag}", (LEG, LEG, leg_h), (x, y, 0), wood)

W, STEP, GAP = 0.04, 0.051, 0.011
seg = (leg_h - 2 * GAP) / 3
for name, (x0, y0) in {"Post.F": (-0.05, -0.33), "Post.B": (-0.05, 0.18)}.items():
    for k in range(3):
        box_object(f"{name}.{k}", (W, W, seg), (x0 + k * STEP, y0 + k * STEP, k * (seg + GAP)), wood)
