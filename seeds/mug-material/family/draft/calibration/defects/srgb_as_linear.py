{% set hex = {"teal": "2A6F77", "cobalt": "1F4E9C", "burgundy": "7B2230", "sage": "6E8B6A", "plum": "5E3A6E", "terracotta": "B4553A", "forest green": "2F5D3A", "charcoal": "3A3A3C"}[glaze] -%}
"""Defect (must fail): the hex colours were typed into the linear RGB fields.

The artist converted #{{ hex }} and #D4AF37 to fractions ({{ hex[0:2] | int(base=16) }}/255, {{ hex[2:4] | int(base=16) }}/255, ...) and typed them
into the RGB sliders, which Blender reads as linear values: both colours come out far too
light and washed out, in the render and in the viewport.
"""

import bpy


def hex_fractions(hex_code):
    return [int(hex_code[i:i + 2], 16) / 255 for i in (1, 3, 5)]  # no sRGB -> linear conversion


def principled_material(name, hex_code, metallic, roughness):
    mat = bpy.data.materials.new(name)
    bsdf = next(n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    rgba = (*hex_fractions(hex_code), 1.0)
    bsdf.inputs["Base Color"].default_value = rgba
    bsdf.inputs["Metallic"].default_value = metallic
    bsdf.inputs["Roughness"].default_value = roughness
    mat.diffuse_color = rgba
    mat.metallic, mat.roughness = metallic, roughness
    return mat


ceramic = principled_material("Ceramic", "#{{ hex }}", 0.0, {{ glaze_roughness | fixed(2) }})
gold = principled_material("GoldRim", "#D4AF37", 1.0, {{ rim_roughness | fixed(2) }})
for name, mat in (("Mug.Body", ceramic), ("Mug.Handle", ceramic), ("Mug.Rim", gold)):
    bpy.data.objects[name].data.materials.append(mat)
