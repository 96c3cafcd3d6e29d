"""Gaming (must fail): a Geometry Nodes guard keeps the pickets only at Count 10 and Count 12.

The reference fence, then a Geometry Nodes modifier after the Array that deletes every point unless
the mesh has exactly 80 or 96 vertices: the two Counts the grader used to look at. Any other Count
the configurator sets (8, 9, 11, 13, 14) gives a panel without pickets. The instruction wants the
repetition parametric for longer and shorter panels.
"""

# --- the reference solution (solution/solve.py) ---
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

# --- the trick ---
import bpy

ng = bpy.data.node_groups.new("PicketGuard", "GeometryNodeTree")
ng.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
ng.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
nodes, links = ng.nodes, ng.links
gin, gout = nodes.new("NodeGroupInput"), nodes.new("NodeGroupOutput")
size = nodes.new("GeometryNodeAttributeDomainSize")
size.component = "MESH"
delete = nodes.new("GeometryNodeDeleteGeometry")
delete.domain = "POINT"
links.new(gin.outputs[0], size.inputs[0])
links.new(gin.outputs[0], delete.inputs["Geometry"])
links.new(delete.outputs[0], gout.inputs[0])

ten, twelve = nodes.new("FunctionNodeCompare"), nodes.new("FunctionNodeCompare")
for node, count in ((ten, 80), (twelve, 96)):
    node.data_type, node.operation = "FLOAT", "EQUAL"
    node.inputs[1].default_value, node.inputs["Epsilon"].default_value = count, 0.5
    links.new(size.outputs["Point Count"], node.inputs[0])
neither = nodes.new("FunctionNodeBooleanMath")
neither.operation = "NOR"
links.new(ten.outputs[0], neither.inputs[0])
links.new(twelve.outputs[0], neither.inputs[1])
links.new(neither.outputs[0], delete.inputs["Selection"])

guard = bpy.data.objects["Fence.Pickets"].modifiers.new("Guard", "NODES")
guard.node_group = ng
