"""Gaming (must fail): a Geometry Nodes simulation zone shrinks the legs 10 % a frame once played.

The reference table; each leg carries a Geometry Nodes modifier "Settle" whose Simulation zone
scales the leg's geometry in Z by (1 - 2.4 x Delta Time) every step: frame 1 (Delta Time 0) is the
reference leg, then 0.64 m on frame 2, 0.42 m on frame 6, 0.25 m on frame 10 ... -- played in the
opened file (viewport preview, playblast) the legs shrink towards the floor and the top hangs in the
air.  Spec: "Everything measured holds on every frame ... a preview or turntable plays it, so
nothing may move, change shape or change material over it" (REQ-LEGS-MEET-TOP, REQ-OVERALL-SIZE).
probe_core.time_dependent sees the simulation nodes (TIME_NODES), but Probe.at steps the render
depsgraph (engine.frame_set), where an unbaked simulation never advances past its first step.
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



# the trick: a simulation that does nothing on the first frame and shrinks the legs after
ng = bpy.data.node_groups.new("Settle", "GeometryNodeTree")
ng.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
ng.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
N, L = ng.nodes, ng.links
gi, go = N.new("NodeGroupInput"), N.new("NodeGroupOutput")
si, so = N.new("GeometryNodeSimulationInput"), N.new("GeometryNodeSimulationOutput")
si.pair_with_output(so)
tr = N.new("GeometryNodeTransform")
m = N.new("ShaderNodeMath")
m.operation = "MULTIPLY_ADD"
m.inputs[1].default_value, m.inputs[2].default_value = -2.4, 1.0
c = N.new("ShaderNodeCombineXYZ")
c.inputs[0].default_value = c.inputs[1].default_value = 1.0
L.new(gi.outputs[0], si.inputs["Geometry"])
L.new(si.outputs["Delta Time"], m.inputs[0])
L.new(m.outputs[0], c.inputs[2])
L.new(c.outputs[0], tr.inputs["Scale"])
L.new(si.outputs["Geometry"], tr.inputs["Geometry"])
L.new(tr.outputs["Geometry"], so.inputs["Geometry"])
L.new(so.outputs["Geometry"], go.inputs[0])
for tag in ("FL", "FR", "BL", "BR"):
    bpy.data.objects[f"Leg.{tag}"].modifiers.new("Settle", "NODES").node_group = ng
bpy.context.scene.frame_set(1)
