"""Gaming (must fail): six more full-height legs under the top, named as braces.

The reference table, then six 6 x 6 cm "Brace.*" meshes in Wood, each from the floor to the
underside of the top, three along each long side: every part is the reference's and every
other object lies inside the table's outline, yet a render shows a ten-legged table, not "a
rectangular top on four legs" (REQ-OTHER-OBJECTS: other objects are add-ons, nothing else
stands under the top). Found by red team 38.
"""

# --- the reference solution (solution/solve.py) ---
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

# --- the trick ---
import bmesh
from mathutils import Matrix


def rt38_box(name, size, base):
    sx, sy, sz = size
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation((0, 0, sz / 2)) @ Matrix.Diagonal((sx, sy, sz, 1)))
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(bpy.data.materials["Wood"])
    obj = bpy.data.objects.new(name, mesh)
    obj.location = base
    bpy.context.scene.collection.objects.link(obj)
    return obj


for i, (x, y) in enumerate([(-0.2, -0.31), (0.2, -0.31), (-0.2, 0.31), (0.2, 0.31), (0.0, -0.31), (0.0, 0.31)]):
    rt38_box(f"Brace.{i}", (0.06, 0.06, 0.71), (x, y, 0.0))
