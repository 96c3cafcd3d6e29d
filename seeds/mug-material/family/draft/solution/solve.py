{% set hex = {"teal": "2A6F77", "cobalt": "1F4E9C", "burgundy": "7B2230", "sage": "6E8B6A", "plum": "5E3A6E", "terracotta": "B4553A", "forest green": "2F5D3A", "charcoal": "3A3A3C"}[glaze] -%}
"""Reference solution for mug-material (bpy, applied to inputs/start.blend).

Two Principled BSDF materials built to the spec: ``Ceramic`` ({{ glaze }} glaze #{{ hex }}, dielectric,
roughness {{ glaze_roughness | fixed(2) }}) on Mug.Body and Mug.Handle, and ``GoldRim`` (gold #D4AF37, fully metallic,
roughness {{ rim_roughness | fixed(2) }}) on Mug.Rim.  The spec's colours are sRGB hex codes, so they are converted to
the linear values Blender stores; each material's viewport display colour, metallic and
roughness are set to match.
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
