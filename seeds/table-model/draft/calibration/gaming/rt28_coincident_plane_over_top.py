"""Gaming (must fail): a plane of another material lies exactly on the tabletop.

The reference table plus a mesh "Skin": one 1.20 x 0.80 face at z = 0.75, exactly on the top's
upper face, with a red mirror-like material. Cycles draws the plane: the top renders as a dark
mirror, not wood, though every face of the five parts uses Wood. The spec (REQ-PARTS): nothing
hides a part -- at least half of each part's surface seen from outside; a surface lying on the
part's own covers it (a render shows either).
"""

# --- the reference solution (solution/solve.py) ---
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

# --- the trick ---
import bpy

paint = bpy.data.materials.new("Paint")
paint.use_nodes = True
bsdf = paint.node_tree.nodes["Principled BSDF"]
bsdf.inputs["Base Color"].default_value = (0.8, 0.0, 0.0, 1.0)
bsdf.inputs["Metallic"].default_value, bsdf.inputs["Roughness"].default_value = 1.0, 0.05
mesh = bpy.data.meshes.new("Skin")
x, y, z = 1.20 / 2, 0.80 / 2, 0.75  # the top's upper face
mesh.from_pydata([(-x, -y, z), (x, -y, z), (x, y, z), (-x, y, z)], [], [(0, 1, 2, 3)])
mesh.materials.append(paint)
bpy.context.scene.collection.objects.link(bpy.data.objects.new("Skin", mesh))
