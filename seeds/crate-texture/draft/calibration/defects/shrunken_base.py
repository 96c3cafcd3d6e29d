"""Defect (must fail): the base island was shrunk to half size.

The seams, the unwrap and the texture are right, but the artist reasoned that nobody looks
under a crate and scaled the base's UV island down to half its size: the base now has half
the texel density of the other faces, against the brief's one density all round.
"""

import bmesh
import bpy
import numpy as np

crate = bpy.data.objects["Crate"]
mesh = crate.data
mesh.uv_layers.new(name="CrateUV")

bm = bmesh.new()
bm.from_mesh(mesh)
xmin = min(v.co.x for v in bm.verts)
ymin = min(v.co.y for v in bm.verts)
for edge in bm.edges:
    faces = edge.link_faces
    horizontal = [abs(f.normal.z) > 0.9 for f in faces]
    if len(faces) == 2 and horizontal[0] != horizontal[1]:
        edge.seam = True
    elif all(abs(v.co.x - xmin) < 1e-6 and abs(v.co.y - ymin) < 1e-6 for v in edge.verts):
        edge.seam = True
bm.to_mesh(mesh)
bm.free()

bpy.context.view_layer.objects.active = crate
crate.select_set(True)
bpy.ops.object.mode_set(mode="EDIT")
bpy.ops.mesh.select_all(action="SELECT")
bpy.ops.uv.unwrap(method="CONFORMAL", margin=0.02)
bpy.ops.uv.pack_islands(margin=0.02, rotate=True)
bpy.ops.object.mode_set(mode="OBJECT")

# shrink the base's island to half size about its own centre (edit mode rebuilt the mesh data:
# look the UV map up again)
uv = mesh.uv_layers["CrateUV"]
co = np.empty(2 * len(mesh.loops))
uv.data.foreach_get("uv", co)
co = co.reshape(-1, 2)
base = [i for p in mesh.polygons if p.normal.z < -0.9 for i in p.loop_indices]
centre = co[base].mean(axis=0)
co[base] = centre + 0.5 * (co[base] - centre)
uv.data.foreach_set("uv", co.ravel())

image = bpy.data.images.new("Crate_BaseColor", 1024, 1024)
image.generated_type = "COLOR_GRID"
tree = bpy.data.materials["CrateWood"].node_tree
bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
tex = tree.nodes.new("ShaderNodeTexImage")
tex.image = image
tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
