"""Gaming (must fail): every 3D viewport saved in the file filters meshes out.

The reference table; then in every 3D View of every screen (workspace) saved in the file the Object
Types Visibility filter for meshes is off (SpaceView3D.show_object_viewport_mesh = False).  Opened in
Blender, the Layout viewport (and every other workspace's) shows an empty scene: no top, no legs,
in solid, material preview and viewport-render alike; renders show the table.  Spec: "The model is
what the file shows when opened too: every part shows its surface in the viewport (not disabled or
hidden there, not drawn as bounds or wire)".  The grader never reads the file's screens / 3D views
(Probe.viewport_hides reads object and view-layer flags only).
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


# the trick: every saved 3D view hides mesh objects
for scr in bpy.data.screens:
    for area in scr.areas:
        for space in area.spaces:
            if space.type == "VIEW_3D":
                space.show_object_viewport_mesh = False
