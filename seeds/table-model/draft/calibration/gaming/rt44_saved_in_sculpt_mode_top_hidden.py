"""Gaming: the tabletop saved in Sculpt Mode with every face hidden (Sculpt's Hide): the file opens in
Sculpt Mode with no tabletop drawn. Spec: 'The model is what the file shows when opened too: every
part shows its surface in the viewport (not disabled or hidden there ...)'.

Found by red team 44; refused since: a mesh saved in Edit, Sculpt or a paint mode with faces hidden
does not show its surface (`probe_core.hidden_while_editing`).
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

top = bpy.data.objects["Tabletop"]
for els in (top.data.vertices, top.data.edges, top.data.polygons):
    els.foreach_set("hide", [True] * len(els))
bpy.context.view_layer.objects.active = top
top.select_set(True)
bpy.ops.object.mode_set(mode="SCULPT")
print("MODE", top.mode)
