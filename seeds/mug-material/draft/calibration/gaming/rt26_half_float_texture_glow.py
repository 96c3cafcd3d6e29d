"""Gaming (must fail): a glowing magenta mug in every EEVEE render, from a texel EEVEE cannot hold.

Both materials are the reference's (Base Color, Alpha, Metallic, Roughness typed in and
unlinked), but each Principled BSDF's Emission Strength is 20 x (1 - Compare(texel, 70000,
epsilon 1000)), magenta Emission Color, where the texel is the one pixel (70000) of a packed
1 x 1 float image "GlazeLUT" (Half Float on, Blender's default) read at a constant (0.5, 0.5).
The grader (and Cycles) read the image's float pixels: 70000, the Compare is 1, the strength 0.
EEVEE -- the scene's own render engine -- uploads the image as a 16-bit half-float texture,
whose largest value is 65504: the texel it reads is not 70000, the Compare is 0, and the whole
mug glows magenta at strength 20 in every render (with Half Float off EEVEE renders it teal).
Breaks REQ-CERAMIC-COLOUR / REQ-GOLD-COLOUR ('no emission'; 'the glaze and the gold do not
glow'), and 'no texture ... driving' is only stated for Base Color / Alpha / Metallic / Roughness.
"""
import bpy


def srgb_to_linear(hex_code):
    out = []
    for i in (1, 3, 5):
        c = int(hex_code[i:i + 2], 16) / 255
        out.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    return out


# the trick's image: one float texel beyond half precision's range, packed into the file
lut = bpy.data.images.new("GlazeLUT", 1, 1, alpha=True, float_buffer=True)
lut.pixels = [70000.0, 70000.0, 70000.0, 1.0]
lut.file_format = "OPEN_EXR"
lut.pack()


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
    tex = nt.nodes.new("ShaderNodeTexImage")
    tex.image = lut
    tex.interpolation = "Closest"
    xyz = nt.nodes.new("ShaderNodeCombineXYZ")
    xyz.inputs[0].default_value = 0.5
    xyz.inputs[1].default_value = 0.5
    nt.links.new(xyz.outputs[0], tex.inputs["Vector"])
    sep = nt.nodes.new("ShaderNodeSeparateColor")
    nt.links.new(tex.outputs["Color"], sep.inputs[0])
    cmp = nt.nodes.new("ShaderNodeMath"); cmp.operation = "COMPARE"
    nt.links.new(sep.outputs[0], cmp.inputs[0])
    cmp.inputs[1].default_value = 70000.0
    cmp.inputs[2].default_value = 1000.0
    inv = nt.nodes.new("ShaderNodeMath"); inv.operation = "SUBTRACT"
    inv.inputs[0].default_value = 1.0
    nt.links.new(cmp.outputs[0], inv.inputs[1])
    strength = nt.nodes.new("ShaderNodeMath"); strength.operation = "MULTIPLY"
    strength.inputs[1].default_value = 20.0
    nt.links.new(inv.outputs[0], strength.inputs[0])
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
