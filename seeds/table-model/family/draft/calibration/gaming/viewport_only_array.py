"""Gaming (must fail): a row of boxes 3 m long that only the viewport shows.

The table is the reference's to the millimetre, plus a small ``Brace`` inside its box -- which
carries an Array modifier (30 copies along X) switched on in the viewport and off in render.
Opening the file shows a 3 m row of boxes running metres out of the table's side; every
render shows a clean table. Breaks REQ-OTHER-OBJECTS: every other object lies inside the
table's own box, "a mesh with all of it, rendered or not, as the viewport and a render show it",
and nothing else may stick out of the table.
"""

import bmesh
import bpy
from mathutils import Matrix

WIDTH, DEPTH, HEIGHT, TOP = {{ width | fixed(2) }}, {{ depth | fixed(2) }}, {{ height | fixed(2) }}, 0.04
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

# --- trick: a brace inside the table whose Array modifier, shown in the viewport only, runs 3 m out
bm = bmesh.new()
bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation((0, 0, 0.3)) @ Matrix.Diagonal((0.1, 0.05, 0.05, 1)))
mesh = bpy.data.meshes.new("Brace")
bm.to_mesh(mesh)
bm.free()
mesh.materials.append(wood)
brace = bpy.data.objects.new("Brace", mesh)
bpy.context.scene.collection.objects.link(brace)
arr = brace.modifiers.new("Array", "ARRAY")
arr.count = 30
arr.show_render, arr.show_viewport = False, True
