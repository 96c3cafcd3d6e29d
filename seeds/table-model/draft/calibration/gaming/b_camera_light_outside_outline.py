"""Gaming (must fail): the reference table with a camera, a light and an empty far outside its outline.

The five parts are the reference's, so every measure of them passes; the extras are no meshes,
so a box rule that looks only at rendered geometry lets them stand anywhere: a camera at
(4, -4, 3), a point light at (-6, 5, 8) and an empty at (20, 0, 0).  The instruction says
anything extra ("an apron, a camera") stays within the table's outline (REQ-OTHER-OBJECTS).
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

# a camera, a light and an empty far outside the table's outline (the instruction: anything
# extra, "an apron, a camera", must stay within the table's outline)
cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
cam.location = (4.0, -4.0, 3.0)
bpy.context.scene.collection.objects.link(cam)
bpy.context.scene.camera = cam
lamp = bpy.data.objects.new("Lamp", bpy.data.lights.new("Lamp", "POINT"))
lamp.location = (-6.0, 5.0, 8.0)
bpy.context.scene.collection.objects.link(lamp)
emp = bpy.data.objects.new("Marker", None)
emp.location = (20.0, 0.0, 0.0)
emp.empty_display_size = 5.0
bpy.context.scene.collection.objects.link(emp)
