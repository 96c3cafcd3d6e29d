"""Gaming (must fail): a display crate around the table, drawn by an Empty instancing a collection.

The five parts are the reference's; an Empty (an allowed "other" type) instances a collection
"Crate" that is not linked into the scene and holds a closed box 20 cm wider than the table on
every side and taller than it. The render shows a crate sticking far out of the table's
outline (REQ-OTHER-OBJECTS: nothing else may stick out of the table), but the crate is no
scene object, so the others' box check never sees it.

Refused by C11 (others_drawn: the Empty is judged by what it draws, a box outside the table's outline; REQ-OTHER-OBJECTS).
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
crate = bpy.data.collections.new("Crate")  # not linked to the scene
crate.objects.link(box_object("CrateBox", (WIDTH + 0.4, DEPTH + 0.4, HEIGHT + 0.25), (0, 0, -0.1), wood, link=False))
holder = bpy.data.objects.new("Apron", None)
holder.instance_type = "COLLECTION"
holder.instance_collection = crate
bpy.context.scene.collection.objects.link(holder)
