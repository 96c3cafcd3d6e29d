"""Gaming (must fail): the teal glaze is a mirror through a grey Specular Tint above 1
(REQ-CERAMIC-COLOUR: the colour that renders is the Base Color; REQ-CERAMIC-FINISH: a glossy
glaze).  IOR 3 (allowed 1-3), Specular IOR Level 1 (allowed <= 1) and Specular Tint (2, 2, 2):
grey (chroma 0), but the tint multiplies the reflectance at normal incidence, 0.25 x 2 x 1 x 2
= 1 (EEVEE caps it there), and the teal beneath is gone; a render shows a black mirror mug.  The
grader checked the tint's chroma only, never its magnitude, and each input alone; refused by
C03 (surface_shader: optics, Specular Tint channels within 0..1 and F0 <= 0.5)."""

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

bsdf = next(n for n in ceramic.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
bsdf.inputs["IOR"].default_value = 3.0
bsdf.inputs["Specular IOR Level"].default_value = 1.0
bsdf.inputs["Specular Tint"].default_value = (2.0, 2.0, 2.0, 1.0)
assert tuple(bsdf.inputs["Specular Tint"].default_value)[:3] == (2.0, 2.0, 2.0), tuple(bsdf.inputs["Specular Tint"].default_value)
