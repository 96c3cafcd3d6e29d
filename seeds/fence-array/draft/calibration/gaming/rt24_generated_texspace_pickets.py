"""Gaming (must fail): nine of the ten pickets are invisible in every render: their alpha is cut by Generated coordinates.

The reference fence, engine Cycles, but the pickets' material is a Principled BSDF whose Alpha is
Generated.X < 1.01 (Texture Coordinate > Generated, Separate XYZ, Math Less Than). Blender
computes Generated coordinates in the texture space of the mesh data-block (Texture Space Auto:
the bounding box of the ONE modelled picket, x -0.76..-0.68), which the evaluated mesh keeps, so
along the arrayed row Generated.X runs 0..1 on the first picket, 2..3 on the second, ... 18..19
on the tenth: alpha 1 on the first picket only, 0 on the other nine. A render of the file shows
the posts, the rails and one picket at the left (REQ-PARTS: "Each part shows in a render ... on at
least 98 % of its faces the material the render draws there ... stops at least half of the
light ... no alpha 0"; REQ-PICKET-PITCH: "shows exactly 10 separate pickets"). The grader's
surface evaluator takes the auto texture space as the bounding box of the EVALUATED mesh (the
whole row), where Generated.X stays within 0..1 and alpha reads 1 everywhere.
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

bpy.context.scene.render.engine = "CYCLES"
mat = bpy.data.materials.new("PicketWood")
mat.use_nodes = True
nt = mat.node_tree
bsdf = next(n for n in nt.nodes if n.type == "BSDF_PRINCIPLED")
bsdf.inputs["Base Color"].default_value = (0.62, 0.50, 0.36, 1.0)
tc = nt.nodes.new("ShaderNodeTexCoord")
sep = nt.nodes.new("ShaderNodeSeparateXYZ")
lt = nt.nodes.new("ShaderNodeMath")
lt.operation = "LESS_THAN"
lt.inputs[1].default_value = 1.01
nt.links.new(tc.outputs["Generated"], sep.inputs[0])
nt.links.new(sep.outputs["X"], lt.inputs[0])
nt.links.new(lt.outputs[0], bsdf.inputs["Alpha"])
pickets.data.materials[0] = mat
