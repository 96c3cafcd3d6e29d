"""Gaming (must fail): a Coat Weight of 25 linked from a Value node.

The reference materials, then on both Principled BSDFs a Value node of 25 linked into Coat
Weight (a typed value stops at 1, a linked one does not), Coat IOR 1.5 and Coat Roughness 0.5:
EEVEE only floors the weight, so the coat reflects 25 x 4 % head-on -- everything -- and neither
the teal nor the gold renders: a grey chrome mug. The spec: a coat "Coat Weight x ((Coat IOR -
1) / (Coat IOR + 1))^2 x Coat Roughness^2, at most 0.02", the colour that renders is the Base
Color. Found by red team 32.
"""

# --- the reference solution (solution/solve.py) ---
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
for mat in (ceramic, gold):
    bsdf = next(n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    value = mat.node_tree.nodes.new("ShaderNodeValue")
    value.outputs[0].default_value = 25.0
    mat.node_tree.links.new(value.outputs[0], bsdf.inputs["Coat Weight"])
    bsdf.inputs["Coat IOR"].default_value, bsdf.inputs["Coat Roughness"].default_value = 1.5, 0.5
