"""Gaming (must fail): four "legs" that are flat cards with loose vertices.

Top, names, material and every bounding box are exactly the reference's, but each leg is one
vertical quad (no thickness) plus two loose vertices that stretch its box to the 6 x 6 cm
section: a box-only grader sees four legs; there is no solid leg and no foot on the floor.
"""

import bmesh
import bpy
from mathutils import Matrix

WIDTH, DEPTH, HEIGHT, TOP = {{ width | fixed(2) }}, {{ depth | fixed(2) }}, {{ height | fixed(2) }}, 0.04
LEG, INSET = 0.06, 0.03


def link(name, mesh, mat, location=(0, 0, 0)):
    mesh.materials.append(mat)
    obj = bpy.data.objects.new(name, mesh)
    obj.location = location
    bpy.context.scene.collection.objects.link(obj)
    return obj


def box_mesh(name, size):
    sx, sy, sz = size
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation((0, 0, sz / 2)) @ Matrix.Diagonal((sx, sy, sz, 1)))
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    return mesh


def card_mesh(name, height):
    """A 6 cm wide card in the XZ plane, and two loose vertices at y = +-3 cm."""
    h = LEG / 2
    verts = [(-h, 0, 0), (h, 0, 0), (h, 0, height), (-h, 0, height), (0, -h, 0), (0, h, height)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], [(0, 1, 2, 3)])
    mesh.update()
    return mesh


wood = bpy.data.materials.new("Wood")
wood.diffuse_color = (0.55, 0.36, 0.20, 1.0)
leg_h = HEIGHT - TOP
link("Tabletop", box_mesh("Tabletop", (WIDTH, DEPTH, TOP)), wood, (0, 0, leg_h))
dx, dy = WIDTH / 2 - INSET - LEG / 2, DEPTH / 2 - INSET - LEG / 2
for tag, (x, y) in {"FL": (-dx, -dy), "FR": (dx, -dy), "BL": (-dx, dy), "BR": (dx, dy)}.items():
    link(f"Leg.{tag}", card_mesh(f"Leg.{tag}", leg_h), wood, (x, y, 0))
