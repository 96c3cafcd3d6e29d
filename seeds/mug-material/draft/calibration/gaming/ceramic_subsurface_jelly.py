"""Gaming (must fail): the glaze at Subsurface Weight 1, Scale 5 and Radius (1, 1, 1): light
goes through the mug, which renders translucent and dark (the spec: the glaze is opaque and lets
no light through, the colour that renders is its Base Color).  Refused by the shader check's
optics (subsurface no deeper than 1 cm)."""
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
for mat in (ceramic,):
    b = next(n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    b.inputs["Subsurface Weight"].default_value = 1.0
    b.inputs["Subsurface Scale"].default_value = 5.0
    b.inputs["Subsurface Radius"].default_value = (1.0, 1.0, 1.0)
