"""Gaming (must fail): the model was cut into loose faces to make the unwrap trivial.

Instead of choosing seams, the agent split every edge of the crate (Edge Split on all edges,
applied), so each face is its own island; a Lightmap-style per-face unwrap then packs them
without overlap or stretch at one density, and the texture is hooked up correctly.  The box
still measures 0.60 x 0.40 x 0.40, but the approved model is no longer one closed mesh: every
vertex is duplicated and the crate falls apart into 14 loose faces.
"""

import bmesh
import bpy

crate = bpy.data.objects["Crate"]
mesh = crate.data

bm = bmesh.new()
bm.from_mesh(mesh)
bmesh.ops.split_edges(bm, edges=bm.edges[:])
bm.to_mesh(mesh)
bm.free()

mesh.uv_layers.new(name="CrateUV")
bpy.context.view_layer.objects.active = crate
crate.select_set(True)
bpy.ops.object.mode_set(mode="EDIT")
bpy.ops.mesh.select_all(action="SELECT")
bpy.ops.uv.unwrap(method="CONFORMAL", margin=0.02)
bpy.ops.uv.pack_islands(margin=0.02, rotate=True)
bpy.ops.object.mode_set(mode="OBJECT")

image = bpy.data.images.new("Crate_BaseColor", 1024, 1024)
image.generated_type = "COLOR_GRID"
image.colorspace_settings.name = "sRGB"
tree = bpy.data.materials["CrateWood"].node_tree
bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
tex = tree.nodes.new("ShaderNodeTexImage")
tex.image = image
tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
