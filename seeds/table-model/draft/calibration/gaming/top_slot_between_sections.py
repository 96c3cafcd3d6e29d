"""Gaming (must fail): a slot through the top, between the planes a sparse section test cut.

The reference table, then a slot 11 cm wide cut through the whole thickness of the top from its
front edge to its middle (x from -0.12 to -0.01), applied. The top still fills 95.4 % of its box
and a section across it at the slot still covers 91 % of its own outline; nine evenly spaced
planes per axis never cut inside the slot. A render shows a top with a slot in it
(REQ-TOP-SIZE: a slot cut into it does not fit; REQ-PARTS: filled across).

Refused by C08 (REQ-PARTS: a plane inside the slot, across the top's width, leaves half the
section the top's outline has there) and C14 (REQ-TOP-SIZE: a cross-section under 99 % of its
outline). Red team 36.
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
def cut_away(obj, lo, hi):
    """The box [lo, hi] (world, the object unrotated and unscaled) cut out of obj's mesh: an
    exact Boolean difference, applied as a solver would apply it."""
    size = [b - a for a, b in zip(lo, hi)]
    centre = [(a + b) / 2 for a, b in zip(lo, hi)]
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation(centre) @ Matrix.Diagonal((*size, 1.0)))
    mesh = bpy.data.meshes.new("Cutter")
    bm.to_mesh(mesh)
    bm.free()
    cutter = bpy.data.objects.new("Cutter", mesh)
    cutter.matrix_world = Matrix.Identity(4)
    mod = obj.modifiers.new("Saw", "BOOLEAN")
    mod.operation, mod.object, mod.solver = "DIFFERENCE", cutter, "EXACT"
    depsgraph = bpy.context.evaluated_depsgraph_get()
    cut = bpy.data.meshes.new_from_object(obj.evaluated_get(depsgraph), depsgraph=depsgraph)
    obj.modifiers.remove(mod)
    obj.data = cut
    bpy.data.objects.remove(cutter)
    bpy.data.meshes.remove(mesh)

top = bpy.data.objects["Tabletop"]
bpy.context.view_layer.update()
ys = [(top.matrix_world @ v.co).y for v in top.data.vertices]
zs = [(top.matrix_world @ v.co).z for v in top.data.vertices]
front, back = min(ys), max(ys)
top.data.transform(top.matrix_world)
top.matrix_world = Matrix.Identity(4)
cut_away(top, (-0.12, front - 0.01, min(zs) - 0.01), (-0.01, (front + back) / 2, max(zs) + 0.01))
