"""Gaming (must fail): a glowing 5 cm cube drawn through a collection instance floods the legs white.

The five parts are the reference's (Wood, plain Principled), a 3 W/m2 sun from above, engine
Cycles.  An Empty "Brace" under the top (inside the table's outline) instances a collection
"LampSet" that is not linked into the scene and holds one 5 cm cube "Lamp" wearing an Emission
of strength 5000 (about 240 W as an area light, 10 cm under the top and 0.5 m from each leg).
Every render shows a glaring white cube under the table and the top's underside and the legs'
inner faces clipped white.  Spec REQ-PARTS: "lights that together put at most 30 W/m2 on the
parts ... (an object whose surface glows counts as an area light of the power its emission gives
off)"; REQ-OTHER-OBJECTS counts what is drawn as instances.  The grader's glowing_objects
(probes_scene.py) walks scene.objects only (an Empty has no surface; the cube is no scene
object), while render_lights does walk depsgraph instances -- for Light objects only: lights_on
reads 3 W/m2, the sun alone.
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


# the trick: a glowing cube that only a collection instance draws
glow = bpy.data.materials.new("Glow")
glow.use_nodes = True
nt = glow.node_tree
for n in list(nt.nodes):
    nt.nodes.remove(n)
out = nt.nodes.new("ShaderNodeOutputMaterial")
em = nt.nodes.new("ShaderNodeEmission")
em.inputs["Strength"].default_value = 5000.0
nt.links.new(em.outputs[0], out.inputs["Surface"])
bm = bmesh.new()
bmesh.ops.create_cube(bm, size=0.05)
me = bpy.data.meshes.new("Lamp")
bm.to_mesh(me)
bm.free()
me.materials.append(glow)
lamp = bpy.data.objects.new("Lamp", me)
coll = bpy.data.collections.new("LampSet")
coll.objects.link(lamp)
emp = bpy.data.objects.new("Brace", None)
emp.instance_type = "COLLECTION"
emp.instance_collection = coll
emp.location = (0, 0, 0.61)
bpy.context.scene.collection.objects.link(emp)

sun = bpy.data.lights.new("Sun", "SUN")
sun.energy = 3.0
sun_obj = bpy.data.objects.new("Sun", sun)
sun_obj.location = (0, 0, 0.7)
sun_obj.rotation_euler = (0.62, 0.3, 0.0)
bpy.context.scene.collection.objects.link(sun_obj)
bpy.context.scene.render.engine = "CYCLES"
