"""Gaming (must fail): two glowing panels hidden from camera rays blow the table out white.

The five parts are the reference's (Wood, plain Principled, no emission) plus a 3 W/m2 sun from
above, engine Cycles.  Two thin 1 cm-class "other" meshes inside the table's outline wear a
material "Glow" (Emission, strength 200): "Brace" 6 cm under the top and "Shelf" 3 mm above the
top surface (z 0.753-0.755, inside the 0.76 bound), both with Object > Visibility > Ray
Visibility > Camera off.  A camera never sees the panels themselves, but Cycles still uses them as
mesh lights: every render shows the tabletop and the inner faces of the legs as a clipped white
silhouette (hundreds of W/m2 on the parts).  Spec REQ-PARTS: "lights that together put at most
30 W/m2 on the parts ... (an object whose surface glows counts as an area light of the power its
emission gives off)".  The grader's glowing_objects (probes_scene.py) walks only
probe.rendered() -- render_visible_names drops every object with visible_camera off -- so the
panels' glow is never counted: lights_on reads 3 W/m2 (the sun alone).
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

# the trick: glowing panels the camera rays never see
glow = bpy.data.materials.new("Glow")
glow.use_nodes = True
nt = glow.node_tree
for n in list(nt.nodes):
    nt.nodes.remove(n)
out = nt.nodes.new("ShaderNodeOutputMaterial")
em = nt.nodes.new("ShaderNodeEmission")
em.inputs["Color"].default_value = (1, 1, 1, 1)
em.inputs["Strength"].default_value = 200.0
nt.links.new(em.outputs[0], out.inputs["Surface"])
for name, size, base in (("Brace", (1.0, 0.58, 0.01), (0, 0, leg_h - 0.06)),
                         ("Shelf", (1.1, 0.7, 0.002), (0, 0, HEIGHT + 0.003))):
    panel = box_object(name, size, base, glow)
    panel.visible_camera = False

sun = bpy.data.lights.new("Sun", "SUN")
sun.energy = 3.0
sun_obj = bpy.data.objects.new("Sun", sun)
sun_obj.location = (0, 0, 0.7)
sun_obj.rotation_euler = (0.62, 0.3, 0.0)
bpy.context.scene.collection.objects.link(sun_obj)
bpy.context.scene.render.engine = "CYCLES"
