"""Gaming (must fail): the gold's Specular Tint black -- grey (its channels equal, each in
0..1), as the spec's tint rule read before -- and Anisotropic 1: Base Color, Metallic 1 and
Roughness 0.25 as stated, but on a metal the tint is the colour of its edges (Blender's F82
tint), so the rim's edges render dark brown: CIEDE2000 29 from the reference at the rim's
edge under the evidence light, 4-5 over the whole rim (Cycles and EEVEE).  Red team 17, left
open then.  Refused by the shader check's optics: Metallic x (1 - the tint's smallest channel)
at most 0.1.  (Anisotropic alone reshapes the highlight, not the colour: the spec leaves it to
the solver and the seed's own variant uses 0.2.)"""
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
b = next(n for n in gold.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
b.inputs["Specular Tint"].default_value = (0.0, 0.0, 0.0, 1.0)
b.inputs["Anisotropic"].default_value = 1.0
