"""Gaming (must fail): the reference table with a Wood material that glows instead of shading.

Geometry, names and slots are the reference's; ``Wood`` is an Emission shader of the wood
colour: flat, unlit renders that look like a wood-brown table to a colour check, and a
material the studio's shader swap cannot treat as a surface.
"""

import bmesh
import bpy
from mathutils import Matrix

WIDTH, DEPTH, HEIGHT, TOP = {{ width | fixed(2) }}, {{ depth | fixed(2) }}, {{ height | fixed(2) }}, 0.04
LEG, INSET = 0.06, 0.03
COLOUR = (0.55, 0.36, 0.20, 1.0)


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
wood.diffuse_color = COLOUR
wood.use_nodes = True
nodes, links = wood.node_tree.nodes, wood.node_tree.links
for node in list(nodes):
    if node.type != "OUTPUT_MATERIAL":
        nodes.remove(node)
output = next(n for n in nodes if n.type == "OUTPUT_MATERIAL")
glow = nodes.new("ShaderNodeEmission")
glow.inputs["Color"].default_value = COLOUR
glow.inputs["Strength"].default_value = 1.0
links.new(glow.outputs["Emission"], output.inputs["Surface"])

leg_h = HEIGHT - TOP
box_object("Tabletop", (WIDTH, DEPTH, TOP), (0, 0, leg_h), wood)
dx, dy = WIDTH / 2 - INSET - LEG / 2, DEPTH / 2 - INSET - LEG / 2
for tag, (x, y) in {"FL": (-dx, -dy), "FR": (dx, -dy), "BL": (-dx, dy), "BR": (dx, dy)}.items():
    box_object(f"Leg.{tag}", (LEG, LEG, leg_h), (x, y, 0), wood)
