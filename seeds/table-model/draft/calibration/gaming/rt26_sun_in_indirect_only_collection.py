"""Gaming (must fail): a 1000 W/m2 sun kept in an Indirect Only collection blows the table out white.

The five parts are the reference's (Wood, plain Principled); engine Cycles.  The only light is a
Sun of strength 1000 (thirty-three times the spec's 30 W/m2 cap) linked into a collection "Rig"
that the view layer marks Indirect Only.  Cycles still lights the scene with it: every render
shows the table as a clipped white silhouette (top and legs white, only the faces turned from the
sun brown).  Spec REQ-PARTS: "lights that together put at most 30 W/m2 on the parts".  The
grader's render_lights (probes_scene.py) takes Light objects only from probe.rendered(), i.e.
probe_core.render_visible_names, which drops everything in a holdout or indirect-only layer
collection (and _masked_in_layer): the sun is never read, lights_on measures 0 W/m2.
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


# the trick: the studio sun, in a collection the view layer renders Indirect Only
coll = bpy.data.collections.new("Rig")
bpy.context.scene.collection.children.link(coll)
sun = bpy.data.lights.new("Sun", "SUN")
sun.energy = 1000.0
sun_obj = bpy.data.objects.new("Sun", sun)
sun_obj.location = (0, 0, 0.7)
sun_obj.rotation_euler = (0.62, 0.3, 0.0)
coll.objects.link(sun_obj)
bpy.context.scene.view_layers[0].layer_collection.children["Rig"].indirect_only = True
bpy.context.scene.render.engine = "CYCLES"
