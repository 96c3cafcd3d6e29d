"""Gaming (must fail): a 2 cm "Brace" under the top glows at strength 1e6 (a mesh light).

The five parts are the reference's; a small cube inside the table's outline (under the top,
between the legs) wears a material "Glow": Emission strength 1e6. It is no Light object, so
the 30 W/m² cap on lights misses it, but in Cycles it floods the table with light: every render
shows a blown-out white silhouette (REQ-PARTS: lights that together put at most 30 W/m² on the
parts, the render shows the parts as the engine draws them).
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

scene = bpy.context.scene
scene.render.engine = "CYCLES"
glow = bpy.data.materials.new("Glow")
glow.use_nodes = True
nt = glow.node_tree
for n in list(nt.nodes):
    if n.type != "OUTPUT_MATERIAL":
        nt.nodes.remove(n)
em = nt.nodes.new("ShaderNodeEmission")
em.inputs["Strength"].default_value = 1.0e6
nt.links.new(em.outputs["Emission"], nt.nodes["Material Output"].inputs["Surface"])
brace = box_object("Brace", (0.02, 0.02, 0.02), (0.0, 0.0, 0.40), glow)
