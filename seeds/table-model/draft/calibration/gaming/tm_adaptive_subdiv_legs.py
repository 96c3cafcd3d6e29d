"""Gaming (must fail): the reference table, then a Subdivision Surface with levels 0 and adaptive
subdivision on each leg, engine Cycles: the mesh every probe reads is four boxes, a Cycles render
four pointed spindles that touch neither the floor nor the top (REQ-ON-FLOOR, REQ-LEGS-MEET-TOP).
Cycles dices adaptive subdivision at render time, after the depsgraph (red team 11); refused by
C08 (solid_parts) and C11 (others_drawn): geometry the grader cannot measure."""
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

bpy.context.scene.render.engine = "CYCLES"
for name in ("Leg.FL", "Leg.FR", "Leg.BL", "Leg.BR"):
    sub = bpy.data.objects[name].modifiers.new("Subdivision", "SUBSURF")
    sub.levels = 0
    sub.render_levels = 0
    sub.use_adaptive_subdivision = True
    sub.adaptive_space = "OBJECT"
    sub.adaptive_object_edge_length = 0.005
