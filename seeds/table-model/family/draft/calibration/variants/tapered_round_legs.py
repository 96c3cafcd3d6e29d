"""Variant (should pass): a different but valid construction of the same table.

Built with Blender's primitive operators instead of bmesh: tapered round legs set 8 cm in
from the edges and parented to the top, a top whose origin sits on the floor and whose edges
are softened by a (live, unapplied) Bevel modifier, an extra apron frame inside the table's
outline, and a ``Wood`` material in a second slot after a spare ``Varnish`` slot that no face
uses (every face of the top is assigned to Wood).
"""

import bpy

WIDTH, DEPTH, HEIGHT, TOP = {{ width | fixed(2) }}, {{ depth | fixed(2) }}, {{ height | fixed(2) }}, 0.04
INSET, R_FOOT, R_TOP = 0.08, 0.022, 0.032
LEG_H = HEIGHT - TOP

varnish = bpy.data.materials.new("Varnish")
wood = bpy.data.materials.new("Wood")
wood.diffuse_color = (0.45, 0.28, 0.15, 1.0)


def finish(obj, name, *materials):
    obj.name = obj.data.name = name
    for mat in materials:
        obj.data.materials.append(mat)
    return obj


# The top: a cube scaled to size, origin moved down to the floor below its centre.
bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0, 0, LEG_H + TOP / 2), scale=(WIDTH, DEPTH, TOP))
top = finish(bpy.context.active_object, "Tabletop", varnish, wood)
for face in top.data.polygons:
    face.material_index = 1  # the Wood slot; Varnish stays as a spare
bpy.ops.object.transform_apply(location=False, rotation=False, scale=True)
bpy.context.scene.cursor.location = (0, 0, 0)
bpy.ops.object.origin_set(type="ORIGIN_CURSOR")
bevel = top.modifiers.new("Soft edges", "BEVEL")
bevel.width, bevel.segments = 0.006, 3

# Tapered legs: cones, wider at the top, parented to the top (parent inverse keeps them in place).
for tag, sx, sy in (("FL", -1, -1), ("FR", 1, -1), ("BL", -1, 1), ("BR", 1, 1)):
    x, y = sx * (WIDTH / 2 - INSET), sy * (DEPTH / 2 - INSET)
    bpy.ops.mesh.primitive_cone_add(vertices=24, radius1=R_FOOT, radius2=R_TOP, depth=LEG_H, location=(x, y, LEG_H / 2))
    leg = finish(bpy.context.active_object, f"Leg.{tag}", wood)
    leg.parent = top
    leg.matrix_parent_inverse = top.matrix_world.inverted()

# Apron rails between the legs, just under the top.
for name, size, loc in (
    ("Apron.Front", (WIDTH - 2 * INSET, 0.02, 0.08), (0, -(DEPTH / 2 - INSET), LEG_H - 0.04)),
    ("Apron.Back", (WIDTH - 2 * INSET, 0.02, 0.08), (0, DEPTH / 2 - INSET, LEG_H - 0.04)),
    ("Apron.Left", (0.02, DEPTH - 2 * INSET, 0.08), (-(WIDTH / 2 - INSET), 0, LEG_H - 0.04)),
    ("Apron.Right", (0.02, DEPTH - 2 * INSET, 0.08), (WIDTH / 2 - INSET, 0, LEG_H - 0.04)),
):
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=loc, scale=size)
    finish(bpy.context.active_object, name, wood)
