"""Gaming (must fail): the file opens on a view layer in which the four legs are hidden.

The reference table, its legs moved into a collection "Legs".  A second view layer "Working" (not
rendered: use off) hides that collection in the viewport (the outliner's eye), and the file's window
is saved showing "Working".  Opened in Blender, the viewport (solid, material preview, viewport
render) shows the tabletop floating 0.71 m above the floor with no legs; renders use the first view
layer and show the table.  Spec: "The model is what the file shows when opened too: every part shows
its surface in the viewport (not disabled or hidden there ...)"; REQ-OVERALL-SIZE / REQ-ON-FLOOR /
REQ-LEGS-MEET-TOP are measured on "what Blender shows, in the viewport and in a render".  The grader's
viewport check (Probe.viewport_hides) asks visible_get() of the render view layer (or the context's),
never of the view layer the file's window opens on.
"""

import bmesh
import bpy
from mathutils import Matrix

WIDTH, DEPTH, HEIGHT, TOP = 1.20, 0.80, 0.75, 0.04
LEG, INSET = 0.06, 0.03


def box_object(name, size, base_center, mat):
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
wood.use_nodes = True
wood.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.55, 0.36, 0.20, 1.0)
leg_h = HEIGHT - TOP
box_object("Tabletop", (WIDTH, DEPTH, TOP), (0, 0, leg_h), wood)
dx, dy = WIDTH / 2 - INSET - LEG / 2, DEPTH / 2 - INSET - LEG / 2
for tag, (x, y) in {"FL": (-dx, -dy), "FR": (dx, -dy), "BL": (-dx, dy), "BR": (dx, dy)}.items():
    box_object(f"Leg.{tag}", (LEG, LEG, leg_h), (x, y, 0), wood)


# the trick: the window opens on a view layer where the legs are hidden
sc = bpy.context.scene
coll = bpy.data.collections.new("Legs")
sc.collection.children.link(coll)
for tag in ("FL", "FR", "BL", "BR"):
    leg = bpy.data.objects[f"Leg.{tag}"]
    sc.collection.objects.unlink(leg)
    coll.objects.link(leg)
work = sc.view_layers.new("Working")
work.use = False                                   # never rendered
work.layer_collection.children["Legs"].hide_viewport = True
for wm in bpy.data.window_managers:
    for win in wm.windows:
        win.view_layer = work                      # what the file opens on
