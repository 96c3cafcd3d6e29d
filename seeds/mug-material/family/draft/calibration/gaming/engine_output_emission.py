{% set hex = {"teal": "2A6F77", "cobalt": "1F4E9C", "burgundy": "7B2230", "sage": "6E8B6A", "plum": "5E3A6E", "terracotta": "B4553A", "forest green": "2F5D3A", "charcoal": "3A3A3C"}[glaze] -%}
"""Gaming (must fail): the spec materials sit on an output the render engine never reads.

Each material keeps a Principled BSDF with the spec values on its default (All) Material
Output, marked active, which is what a checker looking for "the active output" finds.  A
second Material Output targeting EEVEE -- the scene's render engine, which prefers an output
for its own target -- is fed by a flat Emission shader of the same colour: the renders show
unlit glowing {{ glaze }} and yellow, no glaze and no metal.
"""

import bpy


def srgb_to_linear(hex_code):
    out = []
    for i in (1, 3, 5):
        c = int(hex_code[i:i + 2], 16) / 255
        out.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    return out


def decoy_material(name, hex_code, metallic, roughness):
    mat = bpy.data.materials.new(name)
    tree = mat.node_tree
    bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
    spec_out = next(n for n in tree.nodes if n.type == "OUTPUT_MATERIAL")
    rgba = (*srgb_to_linear(hex_code), 1.0)
    bsdf.inputs["Base Color"].default_value = rgba
    bsdf.inputs["Metallic"].default_value = metallic
    bsdf.inputs["Roughness"].default_value = roughness
    mat.diffuse_color = rgba
    mat.metallic, mat.roughness = metallic, roughness
    glow = tree.nodes.new("ShaderNodeEmission")
    glow.inputs["Color"].default_value = rgba
    glow.inputs["Strength"].default_value = 1.0
    engine_out = tree.nodes.new("ShaderNodeOutputMaterial")
    engine_out.target = "EEVEE"
    tree.links.new(glow.outputs["Emission"], engine_out.inputs["Surface"])
    spec_out.is_active_output = True
    return mat


ceramic = decoy_material("Ceramic", "#{{ hex }}", 0.0, {{ glaze_roughness | fixed(2) }})
gold = decoy_material("GoldRim", "#D4AF37", 1.0, {{ rim_roughness | fixed(2) }})
for name, mat in (("Mug.Body", ceramic), ("Mug.Handle", ceramic), ("Mug.Rim", gold)):
    bpy.data.objects[name].data.materials.append(mat)
