"""Gaming (must fail): a Mix factor from a Math Power whose exponent is a hair off an integer.

The materials are the reference's, but Ceramic's Base Color is a Mix (A teal #2A6F77, B red)
whose factor is Math Power(-1, 2.0005); GoldRim is the reference's.
EEVEE's math_power treats an exponent within 0.001 of an integer as that integer for a negative
base: (-1)^2 = 1, so the render shows a RED body and handle.
The grader's evaluator (probes_surface.MATH["POWER"]) requires b == floor(b) exactly and gives
0: it sees teal.  Breaks REQ-CERAMIC-COLOUR (render colour, 'values typed in directly, no node
driving Base Color').  (The same trick on GoldRim's Metallic is refused by C06: linked Metallic.)
"""

import bpy


def srgb_to_linear(hex_code):
    out = []
    for i in (1, 3, 5):
        c = int(hex_code[i:i + 2], 16) / 255
        out.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    return out


def power_node(nt):
    p = nt.nodes.new("ShaderNodeMath")
    p.operation = "POWER"
    p.use_clamp = False
    p.inputs[0].default_value = -1.0
    p.inputs[1].default_value = 2.0005
    return p


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


ceramic, cb = principled_material("Ceramic", "#2A6F77", metallic=0.0, roughness=0.12)
gold, gb = principled_material("GoldRim", "#D4AF37", metallic=1.0, roughness=0.25)

nt = ceramic.node_tree
mix = nt.nodes.new("ShaderNodeMix")
mix.data_type = "RGBA"
mix.blend_type = "MIX"
mix.clamp_factor = True
mix.inputs["A"].default_value = cb.inputs["Base Color"].default_value[:]
mix.inputs[7].default_value = (0.8, 0.02, 0.02, 1.0)  # B_Color: red
nt.links.new(power_node(nt).outputs[0], mix.inputs["Factor"])
nt.links.new(mix.outputs[2], cb.inputs["Base Color"])  # Result_Color



def assign(obj_name, mat):
    mesh = bpy.data.objects[obj_name].data
    mesh.materials.clear()
    mesh.materials.append(mat)


assign("Mug.Body", ceramic)
assign("Mug.Handle", ceramic)
assign("Mug.Rim", gold)
