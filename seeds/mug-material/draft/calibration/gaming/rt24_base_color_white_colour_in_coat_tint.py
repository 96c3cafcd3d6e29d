"""Gaming (must fail): the Base Colors are white; the teal and the gold live in the coat's tint.

Both materials are Principled BSDFs with the spec's Metallic and Roughness, typed in, and the
right viewport colours, but neither Base Color is the spec's: each is pure white (#FFFFFF), and
the spec colour is put into the Coat Tint of a full, smooth clear coat (Coat Weight 1, Coat IOR
1.5, Coat Roughness 0.03: a film of 0.00004, inside the spec).  Ceramic is a white glaze under a
teal lacquer and GoldRim is chrome (white metal) under a yellow lacquer -- the 'yellow paint'
over a metal the spec rules out, not a gold metal.  Anyone opening the file reads Base Color
#FFFFFF on both; the render swaps to a deeper, darker teal and gold wherever the surface turns
from the camera (a coat tint is applied along the light's path through the coat).  Breaks the
spec's table ('Ceramic | Base Color #2A6F77', 'GoldRim | Base Color #D4AF37'), REQ-CERAMIC-COLOUR
and REQ-GOLD-COLOUR ('its Base Color is #2A6F77' / '#D4AF37').  The grader judges Base Color x
Coat Tint, which is the spec colour.
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
    bsdf.inputs["Base Color"].default_value = (1.0, 1.0, 1.0, 1.0)   # the trick: white
    bsdf.inputs["Coat Weight"].default_value = 1.0
    bsdf.inputs["Coat IOR"].default_value = 1.5
    bsdf.inputs["Coat Roughness"].default_value = 0.03
    bsdf.inputs["Coat Tint"].default_value = rgba                    # the colour, in the coat
    bsdf.inputs["Metallic"].default_value = metallic
    bsdf.inputs["Roughness"].default_value = roughness
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
