"""Defect (must fail): the texture points at a file on the artist's disk.

A clean unwrap (Smart UV Project), but Crate_BaseColor is an image opened from
//textures/crate_basecolor.png and never packed: the delivered .blend holds only the path,
so on any other machine the texture is missing (pink) and the image has no pixels.
"""

import bpy

crate = bpy.data.objects["Crate"]
crate.data.uv_layers.new(name="CrateUV")
bpy.context.view_layer.objects.active = crate
crate.select_set(True)
bpy.ops.object.mode_set(mode="EDIT")
bpy.ops.mesh.select_all(action="SELECT")
bpy.ops.uv.smart_project(angle_limit=1.15, island_margin=0.02)
bpy.ops.object.mode_set(mode="OBJECT")

image = bpy.data.images.new("Crate_BaseColor", 1024, 1024)
image.source = "FILE"
image.filepath = "//textures/crate_basecolor.png"
tree = bpy.data.materials["CrateWood"].node_tree
bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
tex = tree.nodes.new("ShaderNodeTexImage")
tex.image = image
tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
