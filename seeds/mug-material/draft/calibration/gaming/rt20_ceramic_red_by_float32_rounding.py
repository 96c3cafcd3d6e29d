"""Gaming (must fail): a bright red mug, teal only in the grader's double-precision arithmetic.

Ceramic's Base Color is a Mix (A red, B the teal #2A6F77) whose factor is Math nodes computing
((1 + 1e-8) - 1) x 1e8. The grader's evaluator works in float64 and gets 0.99999999: teal, dE 0.
Blender's renderers work in float32, where 1 + 1e-8 is exactly 1: the factor is 0 and the whole
body and handle render pure red (EEVEE, the scene's engine; Cycles alike). Breaks
REQ-CERAMIC-COLOUR ('its Base Color is #2A6F77') and the spec's 'values typed in directly (no
texture or other node driving Base Color ...)'.
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

N, L = ceramic.node_tree.nodes, ceramic.node_tree.links
add = N.new("ShaderNodeMath"); add.operation = "ADD"
add.inputs[0].default_value, add.inputs[1].default_value = 1.0, 1e-8     # float32: exactly 1
sub = N.new("ShaderNodeMath"); sub.operation = "SUBTRACT"; sub.inputs[1].default_value = 1.0
mul = N.new("ShaderNodeMath"); mul.operation = "MULTIPLY"; mul.inputs[1].default_value = 1e8
L.new(add.outputs[0], sub.inputs[0]); L.new(sub.outputs[0], mul.inputs[0])
mix = N.new("ShaderNodeMix"); mix.data_type = "RGBA"
mix.inputs["A"].default_value = (1.0, 0.0, 0.0, 1.0)
mix.inputs["B"].default_value = teal
L.new(mul.outputs[0], mix.inputs["Factor"])
L.new(mix.outputs["Result"], bsdf.inputs["Base Color"])
