"""Gaming (must fail): a hot magenta glow the grader reads as Emission Strength 0.

Both materials carry the spec's Base Color, Metallic and Roughness, but each Principled BSDF's
Emission Strength is Math Minimum(Math Exponent(100), 20) with a magenta Emission Color.  In
single precision exp(100) overflows to +inf; both render engines then take min(inf, 20) = 20 and
the mug glows magenta in every render.  The grader's Math evaluator turns the infinite
intermediate into 0 (nan_to_num posinf=0) and reads min(0, 20) = 0: no emission.  Breaks
REQ-CERAMIC-COLOUR / REQ-GOLD-COLOUR ('no emission'; 'the glaze and the gold do not glow ...
(Emission Strength 0)').
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

for mat in (ceramic, gold):
    nt = mat.node_tree
    bsdf = next(n for n in nt.nodes if n.type == "BSDF_PRINCIPLED")
    ex = nt.nodes.new("ShaderNodeMath"); ex.operation = "EXPONENT"; ex.inputs[0].default_value = 100.0
    mn = nt.nodes.new("ShaderNodeMath"); mn.operation = "MINIMUM"; mn.inputs[1].default_value = 20.0
    nt.links.new(ex.outputs[0], mn.inputs[0])
    nt.links.new(mn.outputs[0], bsdf.inputs["Emission Strength"])
    bsdf.inputs["Emission Color"].default_value = (1.0, 0.05, 0.6, 1.0)
