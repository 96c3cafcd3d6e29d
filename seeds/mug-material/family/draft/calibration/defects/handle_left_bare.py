{% set hex = {"teal": "2A6F77", "cobalt": "1F4E9C", "burgundy": "7B2230", "sage": "6E8B6A", "plum": "5E3A6E", "terracotta": "B4553A", "forest green": "2F5D3A", "charcoal": "3A3A3C"}[glaze] -%}
"""Defect (must fail): the handle was never given a material.

Both materials are built to spec, but Ceramic went only onto Mug.Body (the handle was hidden
while the artist assigned materials), so the handle renders in the default grey.
"""

import bpy


def srgb_to_linear(hex_code):
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
    mat.diffuse_color = rgba
    mat.metallic, mat.roughness = metallic, roughness
    return mat


ceramic = principled_material("Ceramic", "#{{ hex }}", 0.0, {{ glaze_roughness | fixed(2) }})
gold = principled_material("GoldRim", "#D4AF37", 1.0, {{ rim_roughness | fixed(2) }})
bpy.data.objects["Mug.Body"].data.materials.append(ceramic)
bpy.data.objects["Mug.Rim"].data.materials.append(gold)
