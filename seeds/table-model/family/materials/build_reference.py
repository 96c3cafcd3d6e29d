"""Reference project for table-model: a four-legged table built from primitives (run in bpy).

{{ width | fixed(2) }} m (X) x {{ depth | fixed(2) }} m (Y) x {{ height | fixed(2) }} m (Z): a 0.04 m thick top on four 0.06 m square legs set 3 cm
in from the edges, standing on the floor (z = 0).  Front is -Y, left is -X.  Every part
carries the material ``Wood``.
"""

import math

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


def build_table():
    wood = bpy.data.materials.new("Wood")
    wood.diffuse_color = (0.55, 0.36, 0.20, 1.0)
    wood.use_nodes = True  # a render shows the Principled BSDF's colour, not the viewport's
    wood.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.55, 0.36, 0.20, 1.0)
    leg_h = HEIGHT - TOP
    box_object("Tabletop", (WIDTH, DEPTH, TOP), (0, 0, leg_h), wood)
    dx, dy = WIDTH / 2 - INSET - LEG / 2, DEPTH / 2 - INSET - LEG / 2
    corners = {"FL": (-dx, -dy), "FR": (dx, -dy), "BL": (-dx, dy), "BR": (dx, dy)}
    for tag, (x, y) in corners.items():
        box_object(f"Leg.{tag}", (LEG, LEG, leg_h), (x, y, 0), wood)


def build_stage():
    # a sun only: anything extra, a camera included, stays within the table's outline (the
    # instruction), and a sun at the origin is inside it
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    sun.rotation_euler = (math.radians(40), math.radians(10), math.radians(30))
    bpy.context.scene.collection.objects.link(sun)


build_table()
build_stage()
