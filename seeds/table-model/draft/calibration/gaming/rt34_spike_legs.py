"""Gaming (must fail): each leg a pyramid whose apex touches the top.

The reference table, then each leg rebuilt as a 16 cm square pyramid standing on the floor in
its corner, its apex just touching the underside of the top: convex (every section filled), six
litres of wood, its foot on the floor -- a slab balanced on four upturned spikes. REQ-LEGS-MEET-TOP:
each leg meets the top "face to face over at least 1 cm2 ... a point or an edge does not".
Found by red team 34.
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

B, H = 0.08, 0.71
for name in ("Leg.FL", "Leg.FR", "Leg.BL", "Leg.BR"):
    obj = bpy.data.objects[name]
    bm = bmesh.new()
    base = [bm.verts.new(c) for c in [(-B, -B, 0), (B, -B, 0), (B, B, 0), (-B, B, 0)]]
    apex = bm.verts.new((0, 0, H))
    bm.faces.new(list(reversed(base)))
    for i in range(4):
        bm.faces.new([base[i], base[(i + 1) % 4], apex])
    bmesh.ops.recalc_face_normals(bm, faces=bm.faces)
    bm.to_mesh(obj.data)
    bm.free()
    sx, sy = (-1 if name[-1] == "L" else 1), (-1 if name[-2] == "F" else 1)
    half = bpy.data.objects["Tabletop"].dimensions / 2  # the leg in its corner, 5 mm in from the top's edges
    obj.location = (sx * (half.x - 0.005 - B), sy * (half.y - 0.005 - B), 0)
