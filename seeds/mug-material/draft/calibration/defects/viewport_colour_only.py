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


ceramic = viewport_only_material("Ceramic", "#2A6F77", 0.0, 0.12)
gold = viewport_only_material("GoldRim", "#D4AF37", 1.0, 0.25)
for name, mat in (("Mug.Body", ceramic), ("Mug.Handle", ceramic), ("Mug.Rim", gold)):
    bpy.data.objects[name].data.materials.append(mat)
