{% set hex = {"teal": "2A6F77", "cobalt": "1F4E9C", "burgundy": "7B2230", "sage": "6E8B6A", "plum": "5E3A6E", "terracotta": "B4553A", "forest green": "2F5D3A", "charcoal": "3A3A3C"}[glaze] -%}
"""Gaming (must fail): a plastic gold on the output the render engine reads.

Each material's default (All) output, marked active, holds a Principled BSDF with the spec
values -- what a checker reading "the active output" finds.  A second Material Output targeting
EEVEE, the scene's engine, which prefers an output for its own target, is fed by another
Principled BSDF of the right colours but the wrong finish: a non-metal, rough gold and a matte
glaze.  The renders show yellow plastic, not metal.
"""

import bpy


def srgb_to_linear(hex_code):
    out = []
    for i in (1, 3, 5):
        c = int(hex_code[i:i + 2], 16) / 255
        out.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    return out


def two_faced(name, hex_code, spec, shown):
    """`spec` (metallic, roughness) on the active All output, `shown` on the EEVEE one."""
    mat = bpy.data.materials.new(name)
    tree = mat.node_tree
    bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
    spec_out = next(n for n in tree.nodes if n.type == "OUTPUT_MATERIAL")
    rgba = (*srgb_to_linear(hex_code), 1.0)
    bsdf.inputs["Base Color"].default_value = rgba
    bsdf.inputs["Metallic"].default_value, bsdf.inputs["Roughness"].default_value = spec
    mat.diffuse_color = rgba
    mat.metallic, mat.roughness = spec
    plastic = tree.nodes.new("ShaderNodeBsdfPrincipled")
    plastic.inputs["Base Color"].default_value = rgba
    plastic.inputs["Metallic"].default_value, plastic.inputs["Roughness"].default_value = shown
    engine_out = tree.nodes.new("ShaderNodeOutputMaterial")
    engine_out.target = "EEVEE"
    tree.links.new(plastic.outputs["BSDF"], engine_out.inputs["Surface"])
    spec_out.is_active_output = True
    return mat


ceramic = two_faced("Ceramic", "#{{ hex }}", (0.0, {{ glaze_roughness | fixed(2) }}), (0.0, 0.9))
gold = two_faced("GoldRim", "#D4AF37", (1.0, {{ rim_roughness | fixed(2) }}), (0.0, 0.8))
for name, mat in (("Mug.Body", ceramic), ("Mug.Handle", ceramic), ("Mug.Rim", gold)):
    bpy.data.objects[name].data.materials.append(mat)
