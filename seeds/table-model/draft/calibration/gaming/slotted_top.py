"""Gaming (must fail): a top with a 10 cm slot cut from its front edge to 2 cm short of the back.

Names, material, the overall box and the legs are the reference's, every part one clean closed
solid with no hole through it; but the top is no "4 cm solid top" (the brief), no rectangular
slab: a slot 10 cm wide runs through its whole thickness from the front edge to 2 cm short of the
back. Each section across the slot is 91.7 % of its own outline (within REQ-PARTS' 90 %), the
section through the slot a small rectangle that is its own outline, and the top's bounding box
is still 1.20 x 0.80 x 0.04.

Refused by C14 (shape_measures, REQ-TOP-SIZE): the top fills 92 % of its box, at least 95 % is
asked (red team, issue 33's held-over finding).
"""
import bmesh
import bpy
from mathutils import Matrix

WIDTH, DEPTH, HEIGHT, TOP = 1.20, 0.80, 0.75, 0.04
LEG, INSET = 0.06, 0.03
SLOT, BACK = 0.10, 0.02  # the slot's width; what is left of the top behind it


def box_mesh(name, size, mat):
    sx, sy, sz = size
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation((0, 0, sz / 2)) @ Matrix.Diagonal((sx, sy, sz, 1)))
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(mat)
    return mesh


def box_object(name, size, base_center, mat):
    obj = bpy.data.objects.new(name, box_mesh(name, size, mat))
    obj.location = base_center
    bpy.context.scene.collection.objects.link(obj)
    return obj


def slotted_top_mesh(name, mat):
    """One closed U-shaped slab: the outline walks round the top and into the slot (counter-
    clockwise seen from above), extruded TOP high -- a prism over a simple polygon: one shell,
    manifold, no hole through it."""
    w, d, s = WIDTH / 2, DEPTH / 2, SLOT / 2
    outline = [(-w, -d), (-s, -d), (-s, d - BACK), (s, d - BACK), (s, -d), (w, -d), (w, d), (-w, d)]
    n = len(outline)
    verts = [(x, y, 0.0) for x, y in outline] + [(x, y, TOP) for x, y in outline]
    faces = [tuple(range(n - 1, -1, -1)), tuple(range(n, 2 * n))]  # bottom faces down, top up
    faces += [(i, (i + 1) % n, n + (i + 1) % n, n + i) for i in range(n)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    mesh.materials.append(mat)
    return mesh


wood = bpy.data.materials.new("Wood")
wood.diffuse_color = (0.55, 0.36, 0.20, 1.0)
wood.use_nodes = True
wood.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.55, 0.36, 0.20, 1.0)
leg_h = HEIGHT - TOP

# --- the trick ------------------------------------------------------------
top = bpy.data.objects.new("Tabletop", slotted_top_mesh("Tabletop", wood))
top.location = (0, 0, leg_h)
bpy.context.scene.collection.objects.link(top)
dx, dy = WIDTH / 2 - INSET - LEG / 2, DEPTH / 2 - INSET - LEG / 2
for tag, (x, y) in {"FL": (-dx, -dy), "FR": (dx, -dy), "BL": (-dx, dy), "BR": (dx, dy)}.items():
    box_object(f"Leg.{tag}", (LEG, LEG, leg_h), (x, y, 0.0), wood)
