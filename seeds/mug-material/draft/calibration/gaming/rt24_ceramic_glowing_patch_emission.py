"""Gaming (must fail): a glowing magenta square on the front of the teal mug (Emission Strength linked).

Both materials are the reference's; Base Color, Alpha, Metallic and Roughness are typed in and
unlinked.  But Ceramic's Emission Strength (an input the grader does not require unlinked) is
20 x a mask that is 1 inside a 2.5 cm x 2.5 cm square on the side of the cup facing the camera
(Object coordinates through Vector Math / Math nodes), with a magenta Emission Color: every
render shows a glowing magenta label on the glaze.  Breaks REQ-CERAMIC-COLOUR ('no emission')
and the spec's 'the glaze and the gold do not glow ... (Emission Strength 0)': the patch is
under 2 % of Ceramic's area, inside the grader's 98 % area share for the emission bound.
"""


import math

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
    return mat, bsdf, rgba


def assign(obj_name, mat):
    mesh = bpy.data.objects[obj_name].data
    mesh.materials.clear()
    mesh.materials.append(mat)


ceramic, bsdf, teal = principled_material("Ceramic", "#2A6F77", metallic=0.0, roughness=0.12)
gold, _, _ = principled_material("GoldRim", "#D4AF37", metallic=1.0, roughness=0.25)
assign("Mug.Body", ceramic)
assign("Mug.Handle", ceramic)
assign("Mug.Rim", gold)


# the black square, on the outer wall facing the camera
HALF_ANGLE = 0.30           # rad: an arc of 2 x 0.041 x 0.30 = 2.5 cm
Z_LO, Z_HI = 0.037, 0.062   # 2.5 cm tall
nt = ceramic.node_tree
N, L = nt.nodes, nt.links
cam = bpy.data.objects["Camera"].matrix_world.translation
d = (cam.x, cam.y)
n = math.hypot(*d)
tc = N.new("ShaderNodeTexCoord")
dot = N.new("ShaderNodeVectorMath"); dot.operation = "DOT_PRODUCT"
dot.inputs[1].default_value = (d[0] / n, d[1] / n, 0.0)
L.new(tc.outputs["Object"], dot.inputs[0])
front = N.new("ShaderNodeMath"); front.operation = "GREATER_THAN"
front.inputs[1].default_value = 0.041 * math.cos(HALF_ANGLE)
L.new(dot.outputs["Value"], front.inputs[0])
sep = N.new("ShaderNodeSeparateXYZ")
L.new(tc.outputs["Object"], sep.inputs[0])
above = N.new("ShaderNodeMath"); above.operation = "GREATER_THAN"; above.inputs[1].default_value = Z_LO
below = N.new("ShaderNodeMath"); below.operation = "LESS_THAN"; below.inputs[1].default_value = Z_HI
L.new(sep.outputs["Z"], above.inputs[0]); L.new(sep.outputs["Z"], below.inputs[0])
m1 = N.new("ShaderNodeMath"); m1.operation = "MULTIPLY"
L.new(above.outputs[0], m1.inputs[0]); L.new(below.outputs[0], m1.inputs[1])
m2 = N.new("ShaderNodeMath"); m2.operation = "MULTIPLY"
L.new(m1.outputs[0], m2.inputs[0]); L.new(front.outputs[0], m2.inputs[1])
glow = N.new("ShaderNodeMath"); glow.operation = "MULTIPLY"; glow.inputs[1].default_value = 20.0
L.new(m2.outputs[0], glow.inputs[0])
bsdf.inputs["Emission Color"].default_value = (1.0, 0.0, 1.0, 1.0)
L.new(glow.outputs[0], bsdf.inputs["Emission Strength"])
