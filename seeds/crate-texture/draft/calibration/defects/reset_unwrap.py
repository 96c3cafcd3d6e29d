"""Defect (must fail): the UVs were "reset" instead of unwrapped.

The artist added CrateUV and hooked up the texture correctly, but laid the UVs out with
UV > Reset: every face fills the whole 0-1 tile, so all faces share the same texture space
(no unique wear possible) and the long faces are squeezed into squares.
"""

import bpy

crate = bpy.data.objects["Crate"]
crate.data.uv_layers.new(name="CrateUV")
bpy.context.view_layer.objects.active = crate
crate.select_set(True)
bpy.ops.object.mode_set(mode="EDIT")
bpy.ops.mesh.select_all(action="SELECT")
bpy.ops.uv.reset()
bpy.ops.object.mode_set(mode="OBJECT")

image = bpy.data.images.new("Crate_BaseColor", 1024, 1024)
image.generated_type = "COLOR_GRID"
tree = bpy.data.materials["CrateWood"].node_tree
bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
tex = tree.nodes.new("ShaderNodeTexImage")
tex.image = image
tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
