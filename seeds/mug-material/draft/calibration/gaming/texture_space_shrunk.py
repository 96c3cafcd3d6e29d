"""Gaming (must fail): a Mix on Generated Z with the texture space shrunk.

Ceramic's Base Color is a Mix whose factor is (Generated Z > 1); the meshes' texture space is shrunk
and lowered (Auto Texture Space off), so in the render Generated Z passes 1 over most of the mug and
it renders red; over the bounding box it never does. Breaks REQ-CERAMIC-COLOUR and 'no node driving
Base Color'.
"""

import bpy


def srgb_to_linear(hex_code):
    """'#rrggbb' (sRGB, as the colour picker's Hex field shows it) -> linear RGB."""
    out = []
    for i in (1, 3, 5):
        c = int(hex_code[i:i + 2], 16) / 255
        out.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    return out


def principled_material(name, hex_code, metallic, roughness):
    mat = bpy.data.materials.new(name)
    bsdf = next(n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    rgba = (*srgb_to_linear(hex_code), 1.0)
    bsdf.inputs["Base Color"].default_value = rgba
    bsdf.inputs["Metallic"].default_value = metallic
    bsdf.inputs["Roughness"].default_value = roughness
    # viewport display (solid view and the catalogue previews)
    mat.diffuse_color = rgba
    mat.metallic = metallic
    mat.roughness = roughness
    return mat


def assign(obj_name, mat):
    mesh = bpy.data.objects[obj_name].data
    mesh.materials.clear()
    mesh.materials.append(mat)


ceramic = principled_material("Ceramic", "#2A6F77", metallic=0.0, roughness=0.12)
gold = principled_material("GoldRim", "#D4AF37", metallic=1.0, roughness=0.25)
assign("Mug.Body", ceramic)
assign("Mug.Handle", ceramic)
assign("Mug.Rim", gold)


# --- the trick ---
tree = ceramic.node_tree
bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
coord = tree.nodes.new("ShaderNodeTexCoord")
sep = tree.nodes.new("ShaderNodeSeparateXYZ")
gt = tree.nodes.new("ShaderNodeMath")
gt.operation = "GREATER_THAN"
gt.inputs[1].default_value = 1.0
mix = tree.nodes.new("ShaderNodeMix")
mix.data_type = "RGBA"
mix.inputs["A"].default_value = (*srgb_to_linear("#2A6F77"), 1.0)
mix.inputs["B"].default_value = (0.8, 0.0, 0.0, 1.0)
tree.links.new(coord.outputs["Generated"], sep.inputs[0])
tree.links.new(sep.outputs["Z"], gt.inputs[0])
tree.links.new(gt.outputs[0], mix.inputs["Factor"])
tree.links.new(mix.outputs["Result"], bsdf.inputs["Base Color"])
for name in ("Mug.Body", "Mug.Handle"):
    me = bpy.data.objects[name].data
    loc, size = tuple(me.texspace_location), tuple(me.texspace_size)
    me.use_auto_texspace = False
    me.texspace_size = (size[0], size[1], size[2] * 0.3)
    me.texspace_location = (loc[0], loc[1], loc[2] - size[2] * 0.9)
