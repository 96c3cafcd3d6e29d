"""Gaming (must fail): a glowing magenta glaze in every EEVEE render, from a texture's mipmap.

Both materials are the reference's (Base Color, Alpha, Metallic, Roughness typed in and
unlinked), but Ceramic's Emission Strength is 40 x the red of a packed 2 x 1 float image
"GlazeMask" [black, white] (Linear, Repeat), read at u = floor(Position.z x 10000) + 0.25,
v = 0.5, with a magenta Emission Color.  u is a whole number + 0.25 at every point, so the
grader (and Cycles) blend only the black texel: strength 0.  But u jumps by whole numbers from
one pixel to the next, so EEVEE -- the scene's own render engine, which samples image textures
through mipmaps chosen by the screen-space derivative of the coordinate -- reads the smallest
mip level, the average of the two texels (0.5): strength 20, and the body and handle glow
magenta in every render.  Breaks REQ-CERAMIC-COLOUR ('no emission'; 'the glaze ... do[es]
not glow').
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
    # the trick: a texture coordinate that is constant mod 1 but jumps between pixels
    mask = bpy.data.images.new("GlazeMask", 2, 1, alpha=True, float_buffer=True)
    mask.pixels = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    mask.file_format = "OPEN_EXR"
    mask.pack()
    geo = nt.nodes.new("ShaderNodeNewGeometry")
    sep = nt.nodes.new("ShaderNodeSeparateXYZ")
    nt.links.new(geo.outputs["Position"], sep.inputs[0])
    k = nt.nodes.new("ShaderNodeMath"); k.operation = "MULTIPLY"
    k.inputs[1].default_value = 1e4
    nt.links.new(sep.outputs[2], k.inputs[0])
    whole = nt.nodes.new("ShaderNodeMath"); whole.operation = "FLOOR"
    nt.links.new(k.outputs[0], whole.inputs[0])
    u = nt.nodes.new("ShaderNodeMath"); u.operation = "ADD"
    u.inputs[1].default_value = 0.25
    nt.links.new(whole.outputs[0], u.inputs[0])
    uv = nt.nodes.new("ShaderNodeCombineXYZ")
    nt.links.new(u.outputs[0], uv.inputs[0])
    uv.inputs[1].default_value = 0.5
    tex = nt.nodes.new("ShaderNodeTexImage")
    tex.image = mask
    tex.interpolation = "Linear"
    tex.extension = "REPEAT"
    nt.links.new(uv.outputs[0], tex.inputs["Vector"])
    red = nt.nodes.new("ShaderNodeSeparateColor")
    nt.links.new(tex.outputs["Color"], red.inputs[0])
    strength = nt.nodes.new("ShaderNodeMath"); strength.operation = "MULTIPLY"
    strength.inputs[1].default_value = 40.0
    nt.links.new(red.outputs[0], strength.inputs[0])
    nt.links.new(strength.outputs[0], bsdf.inputs["Emission Strength"])
    bsdf.inputs["Emission Color"].default_value = (1.0, 0.0, 1.0, 1.0)
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
