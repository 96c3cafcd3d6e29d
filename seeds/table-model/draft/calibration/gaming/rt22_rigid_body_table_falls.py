"""Gaming (must fail): every part is an active rigid body with no floor: played, the table falls away.

The reference table, then a Rigid Body World and an Active rigid body (mass 1, gravity on) on the
Tabletop and each leg; nothing is passive and there is no floor collider.  Frame 1 is the reference
table; played in the opened file (Play, the viewport preview / playblast, or any script stepping
frames) the whole table drops through z = 0 from frame 2 on: top at z 0.70 on frame 2, 0.02 on
frame 10, -6.4 on frame 30, -28 on frame 60 -- no legs on the floor, nothing of the table left in
view.  Spec: "Everything measured holds on every frame of the scene's frame range as supplied
(frames 1-250) ... a preview or turntable plays it, so nothing may move, change shape or change
material over it" (REQ-ON-FLOOR: "no part of the leg below the floor"; REQ-OVERALL-SIZE; the model
"is what the file shows when opened too").  probe_core.time_dependent notices the rigid body world,
but Probe.at steps the render depsgraph (engine.frame_set), which does not run the simulation, so
every graded frame shows the table standing.
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



# the trick: active rigid bodies, no passive floor
sc = bpy.context.scene
with bpy.context.temp_override(scene=sc):
    bpy.ops.rigidbody.world_add()
for name in ("Tabletop", "Leg.FL", "Leg.FR", "Leg.BL", "Leg.BR"):
    obj = bpy.data.objects[name]
    bpy.context.view_layer.objects.active = obj
    with bpy.context.temp_override(object=obj, active_object=obj, selected_objects=[obj]):
        bpy.ops.rigidbody.object_add(type="ACTIVE")
sc.frame_set(1)
