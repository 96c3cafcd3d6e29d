"""Gaming (must fail): every leg sawn nearly through near the floor.

The reference table, then each leg cut across from z 0.127 to 0.19 m through all but a 3 mm web
on its inner face, applied. Each leg keeps its box, its foot on the floor and its joint with the
top; its volume drops 8 %. The web's own section is a rectangle (convex), so a section measured
against its own 2-D hull is full; a plane between nine evenly spaced ones is never cut there.
A render shows four legs cut almost through (REQ-PARTS: filled across).

Refused by C08 (REQ-PARTS): the section through the cut is 5 % of the leg's outline there, the
section of the leg's convex hull. Red team 36.
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

bpy.context.view_layer.update()
for name in ("Leg.FL", "Leg.FR", "Leg.BL", "Leg.BR"):
    leg = bpy.data.objects[name]
    leg.data.transform(leg.matrix_world)
    leg.matrix_world = Matrix.Identity(4)
    xs = [v.co.x for v in leg.data.vertices]
    ys = [v.co.y for v in leg.data.vertices]
    lo, hi = min(xs), max(xs)
    if (lo + hi) / 2 < 0:  # leave the web on the inner face (towards x = 0)
        cut_away(leg, (lo - 0.01, min(ys) - 0.01, 0.127), (hi - 0.003, max(ys) + 0.01, 0.19))
    else:
        cut_away(leg, (lo + 0.003, min(ys) - 0.01, 0.127), (hi + 0.01, max(ys) + 0.01, 0.19))
