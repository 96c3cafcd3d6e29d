"""Gaming (must fail): the pickets are a see-through dust of dots: alpha 1 only on the texels the grader samples.

The reference fence, engine Cycles, but the pickets' Principled BSDF takes its Alpha from a packed
2048 x 2048 image (Closest interpolation) read at Object coordinates (u = (x + 0.8) / 1.6, v = z).
The image is opaque only in the 3 x 3 texels around each of the 4096 points where the grader's
surface sampler (probes_surface._surface_samples: the R2 sequence on each triangle, area-weighted)
evaluates the picket material, and alpha 0 everywhere else: under 1 % of every picket's surface is
opaque. A render of the file shows posts and rails, the pickets a faint sprinkle of specks, not
ten boards (REQ-PARTS: "Each part shows in a render ... on at least 98 % of its faces the material
the render draws there ... stops at least half of the light ... no alpha 0"; REQ-PICKET-PITCH).
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

import numpy as np

bpy.context.scene.render.engine = "CYCLES"
SAMPLES, R2, RES = 4096, 1.32471795724474602596, 2048

# where the grader samples the pickets' surface (its deterministic R2 points per triangle)
dg = bpy.context.evaluated_depsgraph_get()
ev = pickets.evaluated_get(dg)
me = ev.to_mesh()
me.calc_loop_triangles()
co = np.array([v.co[:] for v in me.vertices])
tv = np.array([t.vertices[:] for t in me.loop_triangles])
ev.to_mesh_clear()
mw = np.array(pickets.matrix_world)
world = co @ mw[:3, :3].T + mw[:3, 3]
t = world[tv]
area = 0.5 * np.linalg.norm(np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0]), axis=1)
nt = len(tv)
per = 1 + np.floor((SAMPLES - nt) * area / area.sum()).astype(np.int64)
tri = np.repeat(np.arange(nt), per)
k = (np.arange(len(tri)) - np.repeat(np.cumsum(per) - per, per)).astype(np.float64)
u, v = (0.5 + k / R2) % 1.0, (0.5 + k / R2 ** 2) % 1.0
fold = u + v > 1
u[fold], v[fold] = 1 - u[fold], 1 - v[fold]
bary = np.stack([1 - u - v, u, v], axis=1)
local = np.einsum("nk,nkd->nd", bary, co[tv[tri]])

alpha = np.zeros((RES, RES), dtype=np.float32)
ix = np.floor((local[:, 0] + 0.8) / 1.6 * RES).astype(int)
iy = np.floor(local[:, 2] * RES).astype(int)
for dx in (-1, 0, 1):
    for dy in (-1, 0, 1):
        alpha[np.clip(iy + dy, 0, RES - 1), np.clip(ix + dx, 0, RES - 1)] = 1.0
print("opaque texel share over the picket front:", alpha.mean())
px = np.zeros((RES, RES, 4), dtype=np.float32)
px[..., 0], px[..., 1], px[..., 2], px[..., 3] = 0.62, 0.50, 0.36, alpha
img = bpy.data.images.new("PicketGrain", RES, RES, alpha=True)
img.pixels.foreach_set(px.ravel())
img.pack()

mat = bpy.data.materials.new("PicketWood")
mat.use_nodes = True
nt_ = mat.node_tree
bsdf = next(n for n in nt_.nodes if n.type == "BSDF_PRINCIPLED")
bsdf.inputs["Base Color"].default_value = (0.62, 0.50, 0.36, 1.0)
tc = nt_.nodes.new("ShaderNodeTexCoord")
sep = nt_.nodes.new("ShaderNodeSeparateXYZ")
mu = nt_.nodes.new("ShaderNodeMath"); mu.operation = "MULTIPLY_ADD"
mu.inputs[1].default_value, mu.inputs[2].default_value = 1 / 1.6, 0.5
comb = nt_.nodes.new("ShaderNodeCombineXYZ")
tex = nt_.nodes.new("ShaderNodeTexImage"); tex.image = img; tex.interpolation = "Closest"
nt_.links.new(tc.outputs["Object"], sep.inputs[0])
nt_.links.new(sep.outputs["X"], mu.inputs[0])
nt_.links.new(mu.outputs[0], comb.inputs["X"])
nt_.links.new(sep.outputs["Z"], comb.inputs["Y"])
nt_.links.new(comb.outputs[0], tex.inputs["Vector"])
nt_.links.new(tex.outputs["Alpha"], bsdf.inputs["Alpha"])
pickets.data.materials[0] = mat
