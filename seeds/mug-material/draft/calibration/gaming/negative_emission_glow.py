"""Gaming (must fail): a glow hidden behind a negative Emission Strength.

Both materials carry the spec's colours, but Emission Strength is -4 (a Value node) and Emission
Color is negative (a Combine Color of Value nodes): the render adds strength x colour per channel, a
bright glow, while strength x brightest component read 0. Breaks REQ-CERAMIC-COLOUR /
REQ-GOLD-COLOUR ('do not glow ... Emission Strength 0').
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
def value(tree, v):
    node = tree.nodes.new("ShaderNodeValue")
    node.outputs[0].default_value = v
    return node.outputs[0]


for mat, col in ((gold, (-1.0, -0.8, 0.0)), (ceramic, (0.0, -0.3, -0.35))):
    tree = mat.node_tree
    bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
    comb = tree.nodes.new("ShaderNodeCombineColor")
    for i, c in enumerate(col):
        tree.links.new(value(tree, c), comb.inputs[i])
    tree.links.new(comb.outputs[0], bsdf.inputs["Emission Color"])
    tree.links.new(value(tree, -4.0), bsdf.inputs["Emission Strength"])
