"""Gaming (must fail): a glowing magenta mug in every EEVEE render, read as Emission Strength 0.

Both materials are the reference's (Base Color, Alpha, Metallic, Roughness typed in and
unlinked), but each Principled BSDF's Emission Strength is 20 x (Math Modulo(a, 0.1) < 0.05)
with a magenta Emission Color, where a = 7 + Position.z x 1e-30 (exactly 7 in single precision,
but not a constant, so Blender does not fold the node on the CPU).  Cycles and the grader
compute fmod(7, 0.1f) = 0.0999999: the comparison is 0, no emission.  EEVEE -- the scene's own
render engine -- computes a Modulo on the GPU as a - b x int(a / b); 7 / 0.1f rounds to 70.0
in single precision, so its Modulo is ~0, the comparison 1, and the whole mug glows magenta at
strength 20 in every render of the file.  Breaks REQ-CERAMIC-COLOUR / REQ-GOLD-COLOUR ('no
emission'; 'the glaze and the gold do not glow ... Emission Strength 0').
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
    # the trick: a Modulo EEVEE computes differently from Cycles (and the grader)
    geo = nt.nodes.new("ShaderNodeNewGeometry")
    sep = nt.nodes.new("ShaderNodeSeparateXYZ")
    nt.links.new(geo.outputs["Position"], sep.inputs[0])
    a = nt.nodes.new("ShaderNodeMath"); a.operation = "MULTIPLY_ADD"
    nt.links.new(sep.outputs[2], a.inputs[0])
    a.inputs[1].default_value = 1e-30
    a.inputs[2].default_value = 7.0
    mod = nt.nodes.new("ShaderNodeMath"); mod.operation = "MODULO"
    nt.links.new(a.outputs[0], mod.inputs[0])
    mod.inputs[1].default_value = 0.1
    lt = nt.nodes.new("ShaderNodeMath"); lt.operation = "LESS_THAN"
    nt.links.new(mod.outputs[0], lt.inputs[0])
    lt.inputs[1].default_value = 0.05
    strength = nt.nodes.new("ShaderNodeMath"); strength.operation = "MULTIPLY"
    nt.links.new(lt.outputs[0], strength.inputs[0])
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
