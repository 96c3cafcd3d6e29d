"""Gaming (must fail): the glaze made a thin translucent shell that lets the light through and renders dark.

Ceramic's Principled BSDF has its Thin Wall switch on (a Blender 5 input) with Subsurface Weight 1
at the default Scale 5 mm and Radius (1, 0.2, 0.1): Weight x Scale x the largest Radius is 0.005 m,
inside the spec's 1 cm, but on a thin wall the subsurface layer is diffuse transmission: half of
the light the glaze should scatter back goes through the wall. Base Color, Metallic, Roughness,
IOR, alpha, transmission are all the spec's and the grader's evaluator never reads Thin Wall; the
render shows a dark, muddy teal (CIEDE2000 about 14 from the reference render on the lit front of
the cup), not the swatch. Breaks REQ-CERAMIC-COLOUR and the spec's 'the glaze ... [is] opaque and
let[s] no light through' and 'the colour that renders is the Base Color'.
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
    mat.metallic = metallic
    mat.roughness = roughness
    return mat, bsdf


def assign(obj_name, mat):
    mesh = bpy.data.objects[obj_name].data
    mesh.materials.clear()
    mesh.materials.append(mat)


ceramic, bsdf = principled_material("Ceramic", "#2A6F77", metallic=0.0, roughness=0.12)
gold, _ = principled_material("GoldRim", "#D4AF37", metallic=1.0, roughness=0.25)
assign("Mug.Body", ceramic)
assign("Mug.Handle", ceramic)
assign("Mug.Rim", gold)

bsdf.inputs["Thin Wall"].default_value = True
bsdf.inputs["Subsurface Weight"].default_value = 1.0   # Scale 0.005 m, Radius (1, 0.2, 0.1): 0.005 m
