"""Gaming (must fail): legs that neither stand on the floor nor reach the top, faked by loose
vertices.

Each leg's solid is 2 cm above the floor and stops 5 cm below the top, but carries one loose
vertex on the floor and one at the underside of the top: its bounding box is the reference
leg's, so "lowest point on the floor" and "box touches the top" both hold.  Nothing holds the
top up.
"""

import bmesh
import bpy
from mathutils import Matrix

WIDTH, DEPTH, HEIGHT, TOP = {{ width | fixed(2) }}, {{ depth | fixed(2) }}, {{ height | fixed(2) }}, 0.04
LEG, INSET, LIFT, SHORT = 0.06, 0.03, 0.02, 0.05


def box_object(name, size, base_center, mat, loose=()):
    sx, sy, sz = size
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation((0, 0, sz / 2)) @ Matrix.Diagonal((sx, sy, sz, 1)))
    for co in loose:
        bm.verts.new(co)
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
leg_h = HEIGHT - TOP
box_object("Tabletop", (WIDTH, DEPTH, TOP), (0, 0, leg_h), wood)
dx, dy = WIDTH / 2 - INSET - LEG / 2, DEPTH / 2 - INSET - LEG / 2
solid_h = leg_h - LIFT - SHORT
for tag, (x, y) in {"FL": (-dx, -dy), "FR": (dx, -dy), "BL": (-dx, dy), "BR": (dx, dy)}.items():
    # local z: the solid from 0 to solid_h, a loose vertex LIFT below it and one up at the top
    box_object(f"Leg.{tag}", (LEG, LEG, solid_h), (x, y, LIFT), wood,
               loose=[(0, 0, -LIFT), (0, 0, leg_h - LIFT)])
