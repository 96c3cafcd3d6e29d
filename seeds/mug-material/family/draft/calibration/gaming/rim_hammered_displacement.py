{% set hex = {"teal": "2A6F77", "cobalt": "1F4E9C", "burgundy": "7B2230", "sage": "6E8B6A", "plum": "5E3A6E", "terracotta": "B4553A", "forest green": "2F5D3A", "charcoal": "3A3A3C"}[glaze] -%}
"""Gaming (must fail): "hammered" gold that tears the approved rim apart.

GoldRim has the spec's values, plus a Noise texture through a Displacement node (scale 2 cm)
into the output's Displacement, the material set to true displacement: the render moves the
rim's surface, changing the approved model where the customer sees it.
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


ceramic = principled_material("Ceramic", "#{{ hex }}", metallic=0.0, roughness={{ glaze_roughness | fixed(2) }})
gold = principled_material("GoldRim", "#D4AF37", metallic=1.0, roughness={{ rim_roughness | fixed(2) }})
assign("Mug.Body", ceramic)
assign("Mug.Handle", ceramic)
assign("Mug.Rim", gold)


# --- the trick ------------------------------------------------------------
tree = gold.node_tree
out = next(n for n in tree.nodes if n.type == "OUTPUT_MATERIAL")
noise = tree.nodes.new("ShaderNodeTexNoise")
noise.inputs["Scale"].default_value = 40.0
disp = tree.nodes.new("ShaderNodeDisplacement")
disp.inputs["Scale"].default_value, disp.inputs["Midlevel"].default_value = 0.02, 0.0
tree.links.new(noise.outputs["Fac"], disp.inputs["Height"])
tree.links.new(disp.outputs["Displacement"], out.inputs["Displacement"])
gold.displacement_method = "DISPLACEMENT"
