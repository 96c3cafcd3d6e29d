"""Gaming (must fail): four pucks on the floor, each with a speck under the top.

The legs are cut to 4 cm high pucks standing on the floor at the right places; each leg object
also holds a 2 mm cube just under the top, so its bounding box is still the full leg's: the box
reaches from the floor to the top, but no leg is a solid that carries the table.
"""

import bmesh
import bpy
from mathutils import Matrix, Vector

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
leg_h = HEIGHT - TOP
box_object("Tabletop", (WIDTH, DEPTH, TOP), (0, 0, leg_h), wood)
dx, dy = WIDTH / 2 - INSET - LEG / 2, DEPTH / 2 - INSET - LEG / 2
for tag, (x, y) in {"FL": (-dx, -dy), "FR": (dx, -dy), "BL": (-dx, dy), "BR": (dx, dy)}.items():
    box_object(f"Leg.{tag}", (LEG, LEG, leg_h), (x, y, 0), wood)


def world_mesh(obj):
    """(world vertices, faces) of ``obj``."""
    return [obj.matrix_world @ v.co for v in obj.data.vertices], [tuple(p.vertices) for p in obj.data.polygons]


def set_world_mesh(obj, verts, faces):
    inv = obj.matrix_world.inverted()
    mesh = bpy.data.meshes.new(obj.data.name)
    mesh.from_pydata([tuple(inv @ v) for v in verts], [], faces)
    for mat in obj.data.materials:
        mesh.materials.append(mat)
    obj.data = mesh


CUBE = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]


def corners(lo, hi):
    return [Vector((x, y, z)) for x in (lo.x, hi.x) for y in (lo.y, hi.y) for z in (lo.z, hi.z)]


# --- the trick ------------------------------------------------------------
for tag in ("FL", "FR", "BL", "BR"):
    leg = bpy.data.objects[f"Leg.{tag}"]
    verts, faces = world_mesh(leg)
    lo = Vector([min(v[i] for v in verts) for i in range(3)])
    hi = Vector([max(v[i] for v in verts) for i in range(3)])
    puck = [Vector((v.x, v.y, lo.z + (v.z - lo.z) * 0.04 / leg_h)) for v in verts]
    mid = (lo + hi) / 2
    speck = corners(Vector((mid.x - 0.001, mid.y - 0.001, hi.z - 0.002)), Vector((mid.x + 0.001, mid.y + 0.001, hi.z)))
    set_world_mesh(leg, puck + speck, faces + [tuple(i + len(puck) for i in f) for f in CUBE])
