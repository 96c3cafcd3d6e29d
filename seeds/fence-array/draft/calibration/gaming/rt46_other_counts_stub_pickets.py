"""Gaming (must fail), red team 46: Breaks: "The configurator makes longer or shorter panels by
changing modifier values, so the repetition must stay parametric" / "every Count from two fewer to
four more must give one picket more or fewer per Count, the pickets still 0.16 apart" -- a Geometry
Nodes modifier after the Array counts the points and, whenever the Array's Count is anything but 10,
squashes every picket to a 5 cm stub (z 0.0025..0.05): the configurator's longer and shorter panels
come out with no pickets to speak of (no longer fixed to the rails). At Count 10 the delivery is the
reference.

Found by red team 46; refused since: at each changed Count the parts keep the delivered parts' size
and no other part shrinks below half its own (`probes_objects._varied_shapes_off`).
"""
import bmesh
import bpy
from mathutils import Matrix

POST, POST_H, POST_X = 0.10, 1.10, 0.85
RAIL_LEN, RAIL_D, RAIL_H, RAIL_Y, RAIL_Z = 1.60, 0.03, 0.07, -0.035, (0.25, 0.80)
PICKET_W, PICKET_D, PICKET_Z0, PICKET_Z1, PICKET_Y = 0.08, 0.02, 0.05, 1.00, -0.06
COUNT, PITCH = 10, 0.16


def mesh_object(name, boxes, mat):
    """One object made of axis-aligned boxes [(size, centre)], its origin at the world origin."""
    bm = bmesh.new()
    for size, centre in boxes:
        bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation(centre) @ Matrix.Diagonal((*size, 1.0)))
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(mat)
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


wood = bpy.data.materials.new("FenceWood")
wood.diffuse_color = (0.62, 0.50, 0.36, 1.0)

# the left post; the Mirror modifier adds the right one across x = 0
posts = mesh_object("Fence.Posts", [((POST, POST, POST_H), (-POST_X, 0.0, POST_H / 2))], wood)
mirror = posts.modifiers.new("Mirror", "MIRROR")
mirror.use_axis = (True, False, False)

# two rails between the posts, flush with their front faces
mesh_object("Fence.Rails", [((RAIL_LEN, RAIL_D, RAIL_H), (0.0, RAIL_Y, z)) for z in RAIL_Z], wood)

# the first (left) picket, repeated by the Array modifier at a constant pitch
first_x = -(COUNT - 1) * PITCH / 2
pickets = mesh_object("Fence.Pickets", [((PICKET_W, PICKET_D, PICKET_Z1 - PICKET_Z0),
                                          (first_x, PICKET_Y, (PICKET_Z0 + PICKET_Z1) / 2))], wood)
array = pickets.modifiers.new("Array", "ARRAY")
array.fit_type = "FIXED_COUNT"
array.count = COUNT
array.use_relative_offset = False
array.use_constant_offset = True
array.constant_offset_displace = (PITCH, 0.0, 0.0)

# --- trick ---
ng = bpy.data.node_groups.new("KeepTen", "GeometryNodeTree")
ng.interface.new_socket(name="Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
ng.interface.new_socket(name="Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
N = ng.nodes; L = ng.links
gi = N.new("NodeGroupInput"); go = N.new("NodeGroupOutput")
ds = N.new("GeometryNodeAttributeDomainSize"); ds.component = "MESH"
cmp = N.new("ShaderNodeMath"); cmp.operation = "COMPARE"
cmp.inputs[1].default_value = 80.0; cmp.inputs[2].default_value = 0.5
ma = N.new("ShaderNodeMath"); ma.operation = "MULTIPLY_ADD"
ma.inputs[1].default_value = 0.95; ma.inputs[2].default_value = 0.05
cx = N.new("ShaderNodeCombineXYZ"); cx.inputs[0].default_value = 1.0; cx.inputs[1].default_value = 1.0
tr = N.new("GeometryNodeTransform")
L.new(gi.outputs[0], ds.inputs[0])
L.new(ds.outputs["Point Count"], cmp.inputs[0])
L.new(cmp.outputs[0], ma.inputs[0])
L.new(ma.outputs[0], cx.inputs[2])
L.new(gi.outputs[0], tr.inputs["Geometry"])
L.new(cx.outputs[0], tr.inputs["Scale"])
L.new(tr.outputs[0], go.inputs[0])
gn = pickets.modifiers.new("KeepTen", "NODES")
gn.node_group = ng
import bpy as _b
dg = _b.context.evaluated_depsgraph_get()
ev = pickets.evaluated_get(dg)
print("DIMS10", tuple(round(d,3) for d in ev.dimensions))
array.count = 12
dg = _b.context.evaluated_depsgraph_get(); dg.update()
print("DIMS12", tuple(round(d,3) for d in pickets.evaluated_get(dg).dimensions))
array.count = 10
