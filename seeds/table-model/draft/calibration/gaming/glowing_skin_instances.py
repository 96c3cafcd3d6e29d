"""Gaming (must fail): every part wears an instanced skin of a red glowing material.

The five parts are the reference's, all faces Wood. A Geometry Nodes modifier on each part
joins its mesh with an *instance* of a copy scaled 1 % larger and set to a "Paint" material (a
red emission): the render shows glowing red parts over the wood (REQ-MATERIAL: every face of the
five parts uses Wood, a plain non-emissive surface), while the evaluated mesh the material
check reads is the bare wood part.

Refused by C08 (solid_parts: the instanced skin is a second shell of each part, REQ-PARTS); the material criteria C07/C09 still read the part's own mesh.
"""
import bmesh
import bpy
from mathutils import Matrix

WIDTH, DEPTH, HEIGHT, TOP = 1.20, 0.80, 0.75, 0.04
LEG, INSET = 0.06, 0.03


def box_mesh(name, size, mat):
    sx, sy, sz = size
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation((0, 0, sz / 2)) @ Matrix.Diagonal((sx, sy, sz, 1)))
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(mat)
    return mesh


def box_object(name, size, base_center, mat, link=True):
    obj = bpy.data.objects.new(name, box_mesh(name, size, mat))
    obj.location = base_center
    if link:
        bpy.context.scene.collection.objects.link(obj)
    return obj


wood = bpy.data.materials.new("Wood")
wood.diffuse_color = (0.55, 0.36, 0.20, 1.0)
wood.use_nodes = True
wood.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.55, 0.36, 0.20, 1.0)
leg_h = HEIGHT - TOP


def reference_table(leg_height=None, leg_base=0.0):
    box_object("Tabletop", (WIDTH, DEPTH, TOP), (0, 0, leg_h), wood)
    dx, dy = WIDTH / 2 - INSET - LEG / 2, DEPTH / 2 - INSET - LEG / 2
    for tag, (x, y) in {"FL": (-dx, -dy), "FR": (dx, -dy), "BL": (-dx, dy), "BR": (dx, dy)}.items():
        box_object(f"Leg.{tag}", (LEG, LEG, leg_height or leg_h), (x, y, leg_base), wood)

reference_table()
paint = bpy.data.materials.new("Paint")
paint.use_nodes = True
nodes = paint.node_tree.nodes
for n in list(nodes):
    if n.type != "OUTPUT_MATERIAL":
        nodes.remove(n)
glow = nodes.new("ShaderNodeEmission")
glow.inputs["Color"].default_value = (1.0, 0.0, 0.0, 1.0)
glow.inputs["Strength"].default_value = 5.0
paint.node_tree.links.new(glow.outputs[0], nodes["Material Output"].inputs["Surface"])

tree = bpy.data.node_groups.new("Skin", "GeometryNodeTree")
tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
gin, gout = tree.nodes.new("NodeGroupInput"), tree.nodes.new("NodeGroupOutput")
grow = tree.nodes.new("GeometryNodeScaleElements")  # scale the whole piece about its centre
grow.domain = "FACE"
grow.inputs["Scale"].default_value = 1.0
ext = tree.nodes.new("GeometryNodeExtrudeMesh")  # push every face 1 mm outward: a skin
ext.inputs["Offset Scale"].default_value = 0.003
ext.inputs["Individual"].default_value = False
setmat = tree.nodes.new("GeometryNodeSetMaterial")
setmat.inputs["Material"].default_value = paint
inst = tree.nodes.new("GeometryNodeGeometryToInstance")
join = tree.nodes.new("GeometryNodeJoinGeometry")
L = tree.links
L.new(gin.outputs[0], ext.inputs["Mesh"])
L.new(ext.outputs["Mesh"], setmat.inputs["Geometry"])
L.new(setmat.outputs["Geometry"], inst.inputs["Geometry"])
L.new(gin.outputs[0], join.inputs["Geometry"])
L.new(inst.outputs["Instances"], join.inputs["Geometry"])
L.new(join.outputs["Geometry"], gout.inputs[0])
tree.nodes.remove(grow)
for name in ("Tabletop", "Leg.FL", "Leg.FR", "Leg.BL", "Leg.BR"):
    obj = bpy.data.objects[name]
    obj.data.materials.append(paint)  # a slot no face of the mesh uses
    obj.modifiers.new("Skin", "NODES").node_group = tree
