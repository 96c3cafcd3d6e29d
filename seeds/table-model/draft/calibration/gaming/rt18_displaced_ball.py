"""Gaming (must fail): a 2 cm "Brace" ball under the top that its material displaces into a 4 m globe.

The five parts are the reference's; "Brace" is a small UV sphere (radius 1 cm) inside the
table's outline, wearing a material "Crate" (grey Principled BSDF) whose Material Output gets a
Displacement node of height 2 m, Displacement method "Displacement Only", engine Cycles. The
mesh every probe reads is a 2 cm ball; the render draws a ball of radius ~2 m around the whole
table: every render shows a grey globe, no table (REQ-OTHER-OBJECTS: nothing else may stick
out of the table; REQ-PARTS: nothing hides a part).
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

scene = bpy.context.scene
scene.render.engine = "CYCLES"
crate = bpy.data.materials.new("Crate")
crate.use_nodes = True
nt = crate.node_tree
out = next(n for n in nt.nodes if n.type == "OUTPUT_MATERIAL")
disp = nt.nodes.new("ShaderNodeDisplacement")
disp.inputs["Height"].default_value = 2.0
disp.inputs["Midlevel"].default_value = 0.0
disp.inputs["Scale"].default_value = 1.0
nt.links.new(disp.outputs["Displacement"], out.inputs["Displacement"])
crate.displacement_method = "DISPLACEMENT"
bm = bmesh.new()
bmesh.ops.create_uvsphere(bm, u_segments=16, v_segments=8, radius=0.01)
mesh = bpy.data.meshes.new("Brace")
bm.to_mesh(mesh)
bm.free()
for p in mesh.polygons:
    p.use_smooth = True
mesh.materials.append(crate)
ball = bpy.data.objects.new("Brace", mesh)
ball.location = (0.0, 0.0, 0.40)
scene.collection.objects.link(ball)
