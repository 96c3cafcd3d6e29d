"""Gaming (must fail): a milky clear coat that turns the gold and the glaze pale (REQ-CERAMIC-COLOUR /
REQ-GOLD-COLOUR: the colour that renders is the Base Color; the instruction's metallic gold).

Base Color, Metallic and Roughness are the spec's, but both Principled BSDFs get Coat Weight 1,
Coat IOR 3 (the spec's upper bound), Coat Roughness 1 and a white tint: a 25 % diffuse-looking
white film over the teal and the gold, and an EEVEE render shows a pale grey-blue mug and a
greyish rim.  It got through because Coat IOR and Coat Tint were bounded one by one and the colour
judged was the Base Color through the coat's tint only; refused by C03 / C05 (surface_shader:
base_color, now the Base Color under the coat's reflectance plus what the coat reflects, spread
by its roughness).
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


ceramic = principled_material("Ceramic", "#2A6F77", metallic=0.0, roughness=0.12)
gold = principled_material("GoldRim", "#D4AF37", metallic=1.0, roughness=0.25)
assign("Mug.Body", ceramic)
assign("Mug.Handle", ceramic)
assign("Mug.Rim", gold)

for m in (ceramic, gold):
    b = next(n for n in m.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    b.inputs["Coat Weight"].default_value = 1.0
    b.inputs["Coat IOR"].default_value = 3.0
    b.inputs["Coat Roughness"].default_value = 1.0
    b.inputs["Coat Tint"].default_value = (1, 1, 1, 1)
