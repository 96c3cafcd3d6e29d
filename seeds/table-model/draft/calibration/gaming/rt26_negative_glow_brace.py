"""Gaming (must fail): a "Brace" panel under the top glows with NEGATIVE emission: a light that
takes light away.  The five parts are the reference's (Wood, plain Principled); a thin 1.0 x 0.58 m
"Brace" panel 6 cm under the top, inside the table's outline, wears a material "Shade" whose
Emission Strength is linked from a Math node of -5 (the socket's own field stops at 0; a link
does not).  Engine Cycles, a 3 W/m2 sun from above.  Cycles adds the panel's emission as a mesh
light of negative power: the underside of the top and all four legs render black (light
subtracted), any studio lighting under the top is cancelled.  Spec REQ-PARTS: "lights that
together put at most 30 W/m2 on the parts and none of negative power (an object whose surface
glows counts as an area light of the power its emission gives off)".  The grader's
lights_on_parts refuses a Light of negative output, but the glow of a surface
(probes_surface._emission / emitted_power) is read as |strength x colour|, a magnitude, so the
negative panel counts as 17 W/m2 of light ADDED and passes the 30 W/m2 cap.
"""
import bmesh
import bpy
from mathutils import Matrix

WIDTH, DEPTH, HEIGHT, TOP = 1.20, 0.80, 0.75, 0.04
LEG, INSET = 0.06, 0.03


def box_object(name, size, base_center, mat):
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
wood.use_nodes = True
wood.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.55, 0.36, 0.20, 1.0)
leg_h = HEIGHT - TOP
box_object("Tabletop", (WIDTH, DEPTH, TOP), (0, 0, leg_h), wood)
dx, dy = WIDTH / 2 - INSET - LEG / 2, DEPTH / 2 - INSET - LEG / 2
for tag, (x, y) in {"FL": (-dx, -dy), "FR": (dx, -dy), "BL": (-dx, dy), "BR": (dx, dy)}.items():
    box_object(f"Leg.{tag}", (LEG, LEG, leg_h), (x, y, 0), wood)

# the trick: a negative-emission panel under the top
shade = bpy.data.materials.new("Shade")
shade.use_nodes = True
nt = shade.node_tree
for n in list(nt.nodes):
    nt.nodes.remove(n)
out = nt.nodes.new("ShaderNodeOutputMaterial")
em = nt.nodes.new("ShaderNodeEmission")
em.inputs["Color"].default_value = (1, 1, 1, 1)
neg = nt.nodes.new("ShaderNodeMath")
neg.operation = "MULTIPLY"
neg.inputs[0].default_value = -1.0
neg.inputs[1].default_value = 5.0
nt.links.new(neg.outputs[0], em.inputs["Strength"])
nt.links.new(em.outputs[0], out.inputs["Surface"])
box_object("Brace", (1.0, 0.58, 0.01), (0, 0, leg_h - 0.06), shade)

sun = bpy.data.lights.new("Sun", "SUN")
sun.energy = 3.0
sun_obj = bpy.data.objects.new("Sun", sun)
sun_obj.location = (0, 0, 0.7)
sun_obj.rotation_euler = (0.62, 0.3, 0.0)
bpy.context.scene.collection.objects.link(sun_obj)
bpy.context.scene.render.engine = "CYCLES"
