"""Gaming (must fail): a display crate around the table, living in a second scene used as the Background Set.

The five parts are the reference's. A second scene "Showroom" holds a closed box 20 cm wider than
the table on every side and taller than it; the delivered scene's Background Scene
(scene.background_set) is Showroom, so every render of the delivered scene draws the crate around
the table (REQ-OTHER-OBJECTS: nothing may stick out of the table's outline). The crate is no object
of the delivered scene, no instance, and not in its view layer.
"""
import bmesh
import bpy
from mathutils import Matrix

WIDTH, DEPTH, HEIGHT, TOP = 1.20, 0.80, 0.75, 0.04
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
wood.use_nodes = True  # the render shows the Principled BSDF's colour, not the viewport's
wood.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.55, 0.36, 0.20, 1.0)
leg_h = HEIGHT - TOP
box_object("Tabletop", (WIDTH, DEPTH, TOP), (0, 0, leg_h), wood)
dx, dy = WIDTH / 2 - INSET - LEG / 2, DEPTH / 2 - INSET - LEG / 2
for tag, (x, y) in {"FL": (-dx, -dy), "FR": (dx, -dy), "BL": (-dx, dy), "BR": (dx, dy)}.items():
    box_object(f"Leg.{tag}", (LEG, LEG, leg_h), (x, y, 0), wood)

showroom = bpy.data.scenes.new("Showroom")
sx, sy, sz = WIDTH + 0.4, DEPTH + 0.4, HEIGHT + 0.25
bm = bmesh.new()
bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation((0, 0, sz / 2 - 0.1)) @ Matrix.Diagonal((sx, sy, sz, 1)))
mesh = bpy.data.meshes.new("Crate")
bm.to_mesh(mesh)
bm.free()
mesh.materials.append(wood)
crate = bpy.data.objects.new("Crate", mesh)
showroom.collection.objects.link(crate)
bpy.context.scene.background_set = showroom
