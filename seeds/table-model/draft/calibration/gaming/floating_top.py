"""Gaming (must fail): leg stubs under a top floating 41 cm above them.

Top, names, material and the overall box are the reference's, every part a clean solid; but the
legs are 0.30 m stubs standing on the floor, 0.41 m short of the top: nothing holds the top up
(REQ-LEGS-MEET-TOP). The failed criterion is not core, so the rest carries it over the bar.

Refused by C06 (parts_touch, REQ-LEGS-MEET-TOP), which is core now.
"""
import bmesh
import bpy
from mathutils import Matrix

WIDTH, DEPTH, HEIGHT, TOP = 1.20, 0.80, 0.75, 0.04
LEG, INSET = 0.06, 0.03


def box_mesh(name, size, mat):
    sx, sy, sz = size
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation((0, 0, sz / 2)) @ Matrix.Diagonal((sx, sy, sz, 1)))
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(mat)
    return mesh


def box_object(name, size, base_center, mat, link=True):
    obj = bpy.data.objects.new(name, box_mesh(name, size, mat))
    obj.location = base_center
    if link:
        bpy.context.scene.collection.objects.link(obj)
    return obj


wood = bpy.data.materials.new("Wood")
wood.diffuse_color = (0.55, 0.36, 0.20, 1.0)
wood.use_nodes = True
wood.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.55, 0.36, 0.20, 1.0)
leg_h = HEIGHT - TOP


def reference_table(leg_height=None, leg_base=0.0):
    box_object("Tabletop", (WIDTH, DEPTH, TOP), (0, 0, leg_h), wood)
    dx, dy = WIDTH / 2 - INSET - LEG / 2, DEPTH / 2 - INSET - LEG / 2
    for tag, (x, y) in {"FL": (-dx, -dy), "FR": (dx, -dy), "BL": (-dx, dy), "BR": (dx, dy)}.items():
        box_object(f"Leg.{tag}", (LEG, LEG, leg_height or leg_h), (x, y, leg_base), wood)

reference_table(leg_height=0.30)
