"""Gaming (must fail): the tabletop grows half-metre red glowing hair strands (a legacy hair particle system).

The five parts are the reference's; Tabletop carries a Hair particle system (1000 strands, 0.5 m
long, rendered as Path) using a second material slot "Paint", a red Emission. Every render shows a
glowing red fur ball 0.5 m beyond the table's outline (REQ-OVERALL-SIZE measured on what Blender
shows; REQ-MATERIAL: Wood only, no emission; REQ-OTHER-OBJECTS: nothing sticks out). Hair strands
are neither faces of the evaluated mesh nor depsgraph instances.
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

paint = bpy.data.materials.new("Paint")
paint.use_nodes = True
nt = paint.node_tree
for n in list(nt.nodes):
    if n.type != "OUTPUT_MATERIAL":
        nt.nodes.remove(n)
em = nt.nodes.new("ShaderNodeEmission")
em.inputs["Color"].default_value = (1, 0.05, 0.02, 1)
em.inputs["Strength"].default_value = 20
nt.links.new(em.outputs[0], nt.nodes["Material Output"].inputs["Surface"])
top = bpy.data.objects["Tabletop"]
top.data.materials.append(paint)
mod = top.modifiers.new("Fur", "PARTICLE_SYSTEM")
ps = mod.particle_system.settings
ps.type = "HAIR"
ps.count = 1000
ps.hair_length = 0.5
ps.render_type = "PATH"
ps.material = 2
ps.use_advanced_hair = False
