{% set hex = {"teal": "2A6F77", "cobalt": "1F4E9C", "burgundy": "7B2230", "sage": "6E8B6A", "plum": "5E3A6E", "terracotta": "B4553A", "forest green": "2F5D3A", "charcoal": "3A3A3C"}[glaze] -%}
"""Defect (must fail): the colours were set in Viewport Display only.

The artist picked the colours in Material Properties > Viewport Display, so the solid view
looks right, but the Principled BSDF that renders was left at its defaults (grey, roughness
0.5, not metallic): every render would come out as plain grey plastic.
"""

import bpy


def srgb_to_linear(hex_code):
    out = []
    for i in (1, 3, 5):
        c = int(hex_code[i:i + 2], 16) / 255
        out.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    return out


def viewport_only_material(name, hex_code, metallic, roughness):
    mat = bpy.data.materials.new(name)
    mat.diffuse_color = (*srgb_to_linear(hex_code), 1.0)
    mat.metallic = metallic
    mat.roughness = roughness
    return mat


ceramic = viewport_only_material("Ceramic", "#{{ hex }}", 0.0, {{ glaze_roughness | fixed(2) }})
gold = viewport_only_material("GoldRim", "#D4AF37", 1.0, {{ rim_roughness | fixed(2) }})
for name, mat in (("Mug.Body", ceramic), ("Mug.Handle", ceramic), ("Mug.Rim", gold)):
    bpy.data.objects[name].data.materials.append(mat)
