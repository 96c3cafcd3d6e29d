"""Gaming (must fail): a black mug in every EEVEE render -- a NaN Emission Color behind Emission Strength 0.

Both materials are the reference's (Base Color, Alpha, Metallic, Roughness typed in and
unlinked; Emission Strength 0, typed in), but Ceramic's Emission Color is a Combine Color of
Math Subtract(Exponent(100), Exponent(100)): exp(100) overflows to +inf in single precision and
inf - inf is NaN.  The grader reads "strength 0 needs no colour" and never evaluates the colour;
EEVEE -- the scene's own render engine -- computes the emission as colour x strength = NaN x 0 =
NaN, and the whole body and handle render pitch black in every frame (only the gold rim shows).
Breaks REQ-CERAMIC-COLOUR (the colour that renders is the Base Color #2A6F77).
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
    return mat


def assign(obj_name, mat):
    mesh = bpy.data.objects[obj_name].data
    mesh.materials.clear()
    mesh.materials.append(mat)


ceramic = principled_material("Ceramic", "#2A6F77", metallic=0.0, roughness=0.12)
gold = principled_material("GoldRim", "#D4AF37", metallic=1.0, roughness=0.25)

# the trick: NaN into Emission Color, Emission Strength left at 0
nt = ceramic.node_tree
bsdf = next(n for n in nt.nodes if n.type == "BSDF_PRINCIPLED")
big = nt.nodes.new("ShaderNodeMath"); big.operation = "EXPONENT"
big.inputs[0].default_value = 100.0  # +inf in single precision
nan = nt.nodes.new("ShaderNodeMath"); nan.operation = "SUBTRACT"  # inf - inf = NaN
nt.links.new(big.outputs[0], nan.inputs[0])
nt.links.new(big.outputs[0], nan.inputs[1])
colour = nt.nodes.new("ShaderNodeCombineColor")
for i in range(3):
    nt.links.new(nan.outputs[0], colour.inputs[i])
nt.links.new(colour.outputs[0], bsdf.inputs["Emission Color"])
bsdf.inputs["Emission Strength"].default_value = 0.0

assign("Mug.Body", ceramic)
assign("Mug.Handle", ceramic)
assign("Mug.Rim", gold)
