"""Gaming (should fail): the teal glaze veiled by two stacked mirror layers.

Reference materials, plus on Ceramic: IOR 3 and Specular IOR Level 1 (each at the spec's bound:
F0 = 0.25 x 2 = 0.5) under a smooth clear coat (Coat Weight 1, Coat IOR 3, Coat Roughness 0:
film formula 0, so "allowed") which reflects another F0 0.25 on top.  At normal incidence the
surface reflects ~62 % of the light mirror-like and the diffuse teal is cut to ~37 %: the render
is a dark, mirror-like mug showing the studio, not the #2A6F77 glaze.  GoldRim gets the same
smooth IOR-3 coat: a 25 % white mirror film over the gold.  Breaks REQ-CERAMIC-COLOUR / REQ-GOLD-COLOUR
('the colour that renders is the Base Color') and REQ-CERAMIC-FINISH (glossy glaze, not mirror).
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


ceramic, cb = principled_material("Ceramic", "#2A6F77", metallic=0.0, roughness=0.12)
gold, gb = principled_material("GoldRim", "#D4AF37", metallic=1.0, roughness=0.25)
cb.inputs["IOR"].default_value = 3.0
cb.inputs["Specular IOR Level"].default_value = 1.0
for b in (cb, gb):
    b.inputs["Coat Weight"].default_value = 1.0
    b.inputs["Coat IOR"].default_value = 3.0
    b.inputs["Coat Roughness"].default_value = 0.0
assign("Mug.Body", ceramic)
assign("Mug.Handle", ceramic)
assign("Mug.Rim", gold)
