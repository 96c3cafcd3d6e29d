"""Gaming (must fail): Wood sends back fifty times the light that falls on it.

The reference table, then Wood's Principled Base Color linked from a Value node of 50: Emission
Strength 0, alpha 1, every optics bound kept, but no real surface reflects more light than it
gets -- both engines draw the table as a flat, clipped white silhouette, a lamp in the shape of
a table (REQ-PARTS: an object whose surface glows counts as a light; a colour channel above 1
glows). Found by red team 42.
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
nt = bpy.data.materials["Wood"].node_tree
bsdf = next(n for n in nt.nodes if n.type == "BSDF_PRINCIPLED")
value = nt.nodes.new("ShaderNodeValue")
value.outputs[0].default_value = 50.0
nt.links.new(value.outputs[0], bsdf.inputs["Base Color"])
