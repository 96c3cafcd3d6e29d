"""Gaming (must fail): a brace under the top whose Base Color is 10000, Cycles' indirect clamp off.

The reference table, then a 1.0 x 0.58 x 0.01 m "Brace" 6 cm under the top, inside its outline,
in a material "Paint" whose Principled Base Color comes from a Value node of 10000; Cycles with
Clamp Indirect 0. No emission and no light object, yet the brace turns whatever light reaches it
into a floodlight on the legs (REQ-PARTS: an object whose surface glows counts as a light, within
the 30 W/m² on the parts). Found by red team 42.
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

paint = bpy.data.materials.new("Paint")
paint.use_nodes = True
bsdf = next(n for n in paint.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
value = paint.node_tree.nodes.new("ShaderNodeValue")
value.outputs[0].default_value = 10000.0
paint.node_tree.links.new(value.outputs[0], bsdf.inputs["Base Color"])
bm = bmesh.new()
bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation((0, 0, 0.64)) @ Matrix.Diagonal((1.0, 0.58, 0.01, 1)))
mesh = bpy.data.meshes.new("Brace")
bm.to_mesh(mesh)
bm.free()
mesh.materials.append(paint)
brace = bpy.data.objects.new("Brace", mesh)
bpy.context.scene.collection.objects.link(brace)
bpy.context.scene.render.engine = "CYCLES"
bpy.context.scene.cycles.sample_clamp_indirect = 0.0
