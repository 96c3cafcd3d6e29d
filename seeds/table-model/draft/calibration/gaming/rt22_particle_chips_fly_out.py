"""Gaming (must fail): a "Brace" under the top sprays 20 cm grey blocks out of the table once played.

The reference table plus two small other meshes inside its outline: "Brace" (a 5 cm cube under the
top, not rendered itself) and "Chip" (a 4 cm cube).  Brace carries a particle system: 200 particles
emitted on frame 1, Newtonian physics, gravity 0, normal velocity 3 m/s, lifetime 1000, rendered as
the object Chip at size 5 (20 cm blocks).  On frame 1 every block sits at the Brace, inside the
table; from frame 2 on they fly outwards -- 1.0 m from the origin on frame 5, 1.6 m on frame 10,
4 m on frame 30.  A turntable/animation render of the file (checked: Cycles, frames 1-10) shows grey
blocks flying out around the table; so does viewport playback.  Spec REQ-OTHER-OBJECTS: "nothing
else may stick out of the table ... whatever an empty or another object draws as instances (a
collection instance, vertex or face instancing, node-based instances) lies inside that box too",
and "Everything measured holds on every frame of the scene's frame range ... nothing may move".
probe_core.time_dependent sees the particle system, but Probe.at steps only the render depsgraph
(engine.frame_set): the unbaked particle cache never advances there, so every graded frame's
instances (Probe.instances / drawn_instances) are the frame-1 ones.
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



# the trick: an unbaked Newtonian particle spray instancing a small block
sc = bpy.context.scene


def cube(name, size, loc):
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=size)
    me = bpy.data.meshes.new(name)
    bm.to_mesh(me)
    bm.free()
    obj = bpy.data.objects.new(name, me)
    obj.location = loc
    sc.collection.objects.link(obj)
    return obj


brace = cube("Brace", 0.05, (0, 0, 0.5))
chip = cube("Chip", 0.04, (0, 0, 0.3))
ps = brace.modifiers.new("Dust", "PARTICLE_SYSTEM").particle_system
s = ps.settings
s.count, s.frame_start, s.frame_end, s.lifetime = 200, 1, 1, 1000
s.physics_type = "NEWTON"
s.effector_weights.gravity = 0.0
s.normal_factor = 3.0
s.render_type, s.instance_object, s.particle_size = "OBJECT", chip, 5.0
brace.show_instancer_for_render = False
sc.frame_set(1)
