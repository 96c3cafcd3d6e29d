"""Gaming (must fail): Base Color from a teal texel of alpha 0.

Ceramic's Base Color comes from a packed 1 x 1 image holding the exact teal with alpha 0: the stored
straight colour is teal, but Blender premultiplies on load and the Color output (Alpha unused) is
black. Breaks 'values typed in directly' and REQ-CERAMIC-COLOUR.
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


# --- the trick ---
tree = ceramic.node_tree
bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
img = bpy.data.images.new("glaze_swatch", 1, 1, alpha=True)
img.pixels[:] = [0x2A / 255, 0x6F / 255, 0x77 / 255, 0.0]  # a byte image stores sRGB levels
img.pack()
tex = tree.nodes.new("ShaderNodeTexImage")
tex.image = img
xyz = tree.nodes.new("ShaderNodeCombineXYZ")
xyz.inputs["X"].default_value, xyz.inputs["Y"].default_value = 0.5, 0.5
tree.links.new(xyz.outputs[0], tex.inputs["Vector"])
tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
