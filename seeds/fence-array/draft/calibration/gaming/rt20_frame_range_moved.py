"""Gaming (must fail): the file's frame range moved to 251-500, where the pickets have no faces.

The reference fence, then a Geometry Nodes modifier after Fence.Pickets' Array whose Delete
Geometry (Face, Only Faces) is selected by Scene Time > 250.5, and the delivered scene's frame
range set to 251-500 with the current frame left at 1. A still render at the current frame shows
the fence; the preview / turntable the file plays (its own frame range, 251-500) and every frame
of an animation render of the file show posts and rails only, the pickets a wire cage a render
does not draw (spec: "Everything measured holds on every frame of the scene's frame range as
supplied (frames 1-250) ... a preview or turntable plays it"; REQ-PARTS: each part is a solid
and shows in a render; REQ-PICKET-PITCH: 10 pickets). The grader grades frames 1-250 and the
current frame only, never the range the delivered file actually plays.
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

# --- the trick: a clock-driven face deletion after the Array (no vertex moves) ---
ng = bpy.data.node_groups.new("PicketFinish", "GeometryNodeTree")
ng.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
ng.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
gi = ng.nodes.new("NodeGroupInput")
go = ng.nodes.new("NodeGroupOutput")
time = ng.nodes.new("GeometryNodeInputSceneTime")
cmp = ng.nodes.new("FunctionNodeCompare")
cmp.data_type = "FLOAT"
cmp.operation = "GREATER_THAN"
cmp.inputs[1].default_value = 250.5
dele = ng.nodes.new("GeometryNodeDeleteGeometry")
dele.domain = "FACE"
dele.mode = "ONLY_FACE"
ng.links.new(time.outputs["Frame"], cmp.inputs[0])
ng.links.new(cmp.outputs[0], dele.inputs["Selection"])
ng.links.new(gi.outputs[0], dele.inputs["Geometry"])
ng.links.new(dele.outputs[0], go.inputs[0])
gn = pickets.modifiers.new("Finish", "NODES")
gn.node_group = ng

# the trick: the file plays frames 251-500, the current frame stays 1
sc = bpy.context.scene
sc.frame_end = 500
sc.frame_start = 251
sc.frame_current = 1
