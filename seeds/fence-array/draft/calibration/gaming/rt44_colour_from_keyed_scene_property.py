"""Gaming (must fail), red team 44: the fence turns from wood brown to magenta during the playback --
the wood's Base Color is a Mix of brown and magenta whose factor is an Attribute node of type View
Layer reading the scene's custom property "tint", keyed 0 at frame 1 and 1 at frame 100 (the parts,
their materials and node trees never change; only a scene property does).

Breaks: spec "Everything measured holds on every frame of the scene's frame range ... a preview or
turntable plays it, so nothing may move, change shape or change material over it".

Refused since: a part's look holds what its materials' View Layer and Object Attribute nodes read
(`Probe.look`).
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
sc = bpy.context.scene
sc["tint"] = 0.0
sc.keyframe_insert('["tint"]', frame=1)
sc["tint"] = 1.0
sc.keyframe_insert('["tint"]', frame=100)
wood.use_nodes = True
nt = wood.node_tree
bsdf = nt.nodes.get("Principled BSDF")
at = nt.nodes.new("ShaderNodeAttribute"); at.attribute_type = "VIEW_LAYER"; at.attribute_name = "tint"
mix = nt.nodes.new("ShaderNodeMix"); mix.data_type = "RGBA"
mix.inputs["A"].default_value = (0.62, 0.50, 0.36, 1.0)
mix.inputs["B"].default_value = (0.9, 0.0, 0.8, 1.0)
nt.links.new(at.outputs["Fac"], mix.inputs["Factor"]); nt.links.new(mix.outputs["Result"], bsdf.inputs["Base Color"])
