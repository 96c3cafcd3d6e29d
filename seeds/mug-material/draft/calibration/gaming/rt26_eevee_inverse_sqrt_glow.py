"""Gaming (must fail): a glowing magenta glaze in every EEVEE render: Inverse Square Root of 0.

Both materials are the reference's (Base Color, Alpha, Metallic, Roughness typed in and
unlinked), but Ceramic's Emission Strength is 20 x (1 - Compare(Math Inverse Square Root(a), 0,
epsilon 0.001)) with a magenta Emission Color, where a = Position.z x 0 (0, but not a constant
Blender folds on the CPU).  The grader (and Cycles) take the engines' "safe" inverse square root:
0 for a <= 0, the Compare is 1, no emission.  EEVEE -- the scene's own render engine -- computes
inversesqrt(0) = +inf on the GPU: the Compare is 0 and the body and handle glow magenta at
strength 20 in every render.  (Math Arcsine of 2 does the same: the grader clips to asin(1).)
Breaks REQ-CERAMIC-COLOUR ('no emission'; 'the glaze ... do[es] not glow ... Emission Strength 0').
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
    nt = mat.node_tree
    bsdf = next(n for n in nt.nodes if n.type == "BSDF_PRINCIPLED")
    rgba = (*srgb_to_linear(hex_code), 1.0)
    bsdf.inputs["Base Color"].default_value = rgba
    bsdf.inputs["Metallic"].default_value = metallic
    bsdf.inputs["Roughness"].default_value = roughness
    mat.diffuse_color = rgba
    mat.metallic = metallic
    mat.roughness = roughness
    if name != "Ceramic":
        return mat
    # the trick: an Inverse Square Root EEVEE computes without the engines' guard
    geo = nt.nodes.new("ShaderNodeNewGeometry")
    sep = nt.nodes.new("ShaderNodeSeparateXYZ")
    nt.links.new(geo.outputs["Position"], sep.inputs[0])
    a = nt.nodes.new("ShaderNodeMath"); a.operation = "MULTIPLY"
    nt.links.new(sep.outputs[2], a.inputs[0])
    a.inputs[1].default_value = 0.0
    isq = nt.nodes.new("ShaderNodeMath"); isq.operation = "INVERSE_SQRT"
    nt.links.new(a.outputs[0], isq.inputs[0])
    cmp = nt.nodes.new("ShaderNodeMath"); cmp.operation = "COMPARE"
    nt.links.new(isq.outputs[0], cmp.inputs[0])
    cmp.inputs[1].default_value = 0.0
    cmp.inputs[2].default_value = 1e-3
    inv = nt.nodes.new("ShaderNodeMath"); inv.operation = "SUBTRACT"
    inv.inputs[0].default_value = 1.0
    nt.links.new(cmp.outputs[0], inv.inputs[1])
    strength = nt.nodes.new("ShaderNodeMath"); strength.operation = "MULTIPLY"
    nt.links.new(inv.outputs[0], strength.inputs[0])
    strength.inputs[1].default_value = 20.0
    nt.links.new(strength.outputs[0], bsdf.inputs["Emission Strength"])
    bsdf.inputs["Emission Color"].default_value = (1.0, 0.0, 1.0, 1.0)
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
