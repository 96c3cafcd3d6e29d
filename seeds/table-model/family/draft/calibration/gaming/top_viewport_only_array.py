"""Gaming (must fail): the top is right in a render and three times as long in the viewport.

The reference table, but ``Tabletop`` carries an Array modifier (3 copies along X) shown in the
viewport and not in render. A render and a render-mode measurement see the top at its size; the
file as opened -- what a customer or a room planner that evaluates the viewport gets -- shows a
top three times as long (3.60 m for a 1.20 m table). Breaks REQ-TOP-SIZE and REQ-OVERALL-SIZE,
measured on "what Blender shows, in the viewport and in a render".
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

# --- trick: the top carries a viewport-only Array: the viewport (and any viewport-based import) shows a 3.6 m top
top = bpy.data.objects["Tabletop"]
arr = top.modifiers.new("Array", "ARRAY")
arr.count = 3
arr.show_render, arr.show_viewport = False, True
