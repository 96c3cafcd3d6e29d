"""Gaming (must fail): a display crate drawn through vertex instancing (the child of a hidden instancer).

The five parts are the reference's. A 1 cm helper mesh "Brace" inside the table's outline has
one vertex and Instancing "Verts" (its own mesh not rendered); its child "Apron" is the
crate, a closed box 20 cm wider than the table on every side. A render shows the crate around
the table (REQ-OTHER-OBJECTS: nothing may stick out of the table); the child of an instancer is
not rendered as itself, and the instancer is not rendered either, so no box is checked.

Refused by C11 (others_drawn: the vertex instancer is judged by the crate it draws; REQ-OTHER-OBJECTS).
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

reference_table()
helper_mesh = bpy.data.meshes.new("Brace")
helper_mesh.from_pydata([(0.0, 0.0, 0.0)], [], [])
helper = bpy.data.objects.new("Brace", helper_mesh)
helper.location = (0.0, 0.0, 0.3)
helper.instance_type = "VERTS"
helper.show_instancer_for_render = False
helper.show_instancer_for_viewport = False
bpy.context.scene.collection.objects.link(helper)
crate = box_object("Apron", (WIDTH + 0.4, DEPTH + 0.4, HEIGHT + 0.25), (0, 0, -0.4), wood)
crate.parent = helper
