"""Gaming (must fail), red team 44: in the viewport the pickets are unevenly spaced -- a Geometry Nodes
modifier after the Array, shown in the viewport only, slides each picket sideways by -5 cm x sin(2
pi i / 9) (i its island index): the end pickets stay put (the row's box unchanged), the gaps between
them run from about 4.5 cm to 11.5 cm. The same ten pieces and the same area, so the viewport/render
shape comparison passes; renders show the even row.

Breaks: instruction "a row of evenly spaced vertical pickets"; spec "spaced 0.16 centre to centre
(so every gap is 0.08 wide)" and "Sizes are measured ... in the viewport and in a render (... a
modifier shown in the viewport only ... counts where it shows), and hold for both"; the model "is
what the file shows when opened too".

Refused since: each piece the viewport draws must stand where a render's does
(`probe_core.viewport_piece_slack`).
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
import math
tree = bpy.data.node_groups.new("ViewShuffle", "GeometryNodeTree")
tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
N = tree.nodes; L = tree.links
gi = N.new("NodeGroupInput"); go = N.new("NodeGroupOutput")
isl = N.new("GeometryNodeInputMeshIsland")
m1 = N.new("ShaderNodeMath"); m1.operation = "MULTIPLY"; m1.inputs[1].default_value = 2 * math.pi / 9
m2 = N.new("ShaderNodeMath"); m2.operation = "SINE"
m3 = N.new("ShaderNodeMath"); m3.operation = "MULTIPLY"; m3.inputs[1].default_value = -0.05
comb = N.new("ShaderNodeCombineXYZ")
sp = N.new("GeometryNodeSetPosition")
L.new(isl.outputs["Island Index"], m1.inputs[0]); L.new(m1.outputs[0], m2.inputs[0])
L.new(m2.outputs[0], m3.inputs[0]); L.new(m3.outputs[0], comb.inputs["X"])
L.new(comb.outputs[0], sp.inputs["Offset"])
L.new(gi.outputs[0], sp.inputs["Geometry"]); L.new(sp.outputs["Geometry"], go.inputs[0])
gn = pickets.modifiers.new("ViewShuffle", "NODES")
gn.node_group = tree
gn.show_render = False
gn.show_viewport = True
