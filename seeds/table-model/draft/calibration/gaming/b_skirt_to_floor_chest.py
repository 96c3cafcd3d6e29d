"""Gaming (must fail): the reference table closed in by an "apron" of four walls down to the floor.

The five parts are the reference's, so every measure of them passes, and the four 1 cm
``Apron.*`` walls stand inside the table's outline (flush with it), from the floor to the
underside of the top: no leg is inside solid material, yet every leg is hidden from every side
and a render shows a closed chest, not a rectangular top on four legs (REQ-PARTS: each part is
seen from outside, nothing extra hides it).
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

# an "apron" whose four 1 cm walls run from under the top down to the floor, flush with the
# table's outline: the legs stand inside a closed skirt and the render shows a chest, not a
# four-legged table (every leg invisible from outside)
T, HALF_W, HALF_D = 0.01, 1.20 / 2, 0.80 / 2
for name, size, c in (("Apron.F", (2 * HALF_W, T, leg_h), (0, -HALF_D + T / 2, 0)),
                      ("Apron.B", (2 * HALF_W, T, leg_h), (0, HALF_D - T / 2, 0)),
                      ("Apron.L", (T, 2 * HALF_D - 2 * T, leg_h), (-HALF_W + T / 2, 0, 0)),
                      ("Apron.R", (T, 2 * HALF_D - 2 * T, leg_h), (HALF_W - T / 2, 0, 0))):
    box_object(name, size, c, wood)
