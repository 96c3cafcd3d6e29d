"""Gaming (must fail): the reference table, then the scene's Unit Scale set to 0.01 (length unit
centimetres): the file is a 1.2 cm doll's-house table. Opened in Blender, the N panel reads the top as
1.2 cm x 8 mm x 0.4 mm and a leg 7.1 mm tall; a default FBX export (Apply Unit on) imported into a
metre scene is a 0.012 x 0.008 x 0.0004 m top -- a room planner places a table a hundredth of the
product's size (spec: "Units are metres"; REQ-OVERALL-SIZE 1.20 x 0.80 x 0.75; the brief: "the overall
size must match the product sheet exactly, because the model is placed in room planners").  Every
probe reads Blender units as metres and never reads scene.unit_settings.
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
s = bpy.context.scene
s.unit_settings.system = 'METRIC'
s.unit_settings.scale_length = 0.01
s.unit_settings.length_unit = 'CENTIMETERS'
