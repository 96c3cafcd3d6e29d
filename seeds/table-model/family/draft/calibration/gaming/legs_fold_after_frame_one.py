"""Gaming (must fail): the legs are right on frame 1 and flat from frame 2.

A driver on each leg's Z delta scale, `1 - 0.99 * (frame > 1)`, squashes the legs onto the floor on
every frame after the first (the catalogue's turntable plays the scene's frame range). A check
of frame 1 sees the reference table; the turntable shows a top floating in the air.
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
leg_h = HEIGHT - TOP
box_object("Tabletop", (WIDTH, DEPTH, TOP), (0, 0, leg_h), wood)
dx, dy = WIDTH / 2 - INSET - LEG / 2, DEPTH / 2 - INSET - LEG / 2
for tag, (x, y) in {"FL": (-dx, -dy), "FR": (dx, -dy), "BL": (-dx, dy), "BR": (dx, dy)}.items():
    box_object(f"Leg.{tag}", (LEG, LEG, leg_h), (x, y, 0), wood)


def after_first_frame(owner, path, index, expression):
    """A driver (simple expression on ``frame``) on ``owner.path[index]``."""
    fcurve = owner.driver_add(path, index) if index is not None else owner.driver_add(path)
    fcurve.driver.type = "SCRIPTED"
    fcurve.driver.expression = expression


# --- the trick ------------------------------------------------------------
for tag in ("FL", "FR", "BL", "BR"):
    after_first_frame(bpy.data.objects[f"Leg.{tag}"], "delta_scale", 2, "1 - 0.99 * (frame > 1)")
