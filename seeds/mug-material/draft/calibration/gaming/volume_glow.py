"""Gaming (must fail): an orange glow fed into each material's Volume socket (REQ-CERAMIC-COLOUR /
REQ-GOLD-COLOUR: no emission, the glaze and the gold do not glow, one output and no other shader).

Each material's Surface is exactly the spec's Principled BSDF, but its Material Output's Volume
takes a Principled Volume (density 0, emission strength 50, orange): an EEVEE render shows an
orange halo round the body and the rim and hot spots where the handle meets the body.  It got
through because the surface checks followed only the output's Surface (and Displacement) socket;
refused by C03 / C05 (surface_shader: the Volume's emission counts in max_emission, and a Volume
shader that glows, absorbs or scatters is another shader, so the colour is not the surface's).
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

for m in (ceramic, gold):
    nt = m.node_tree
    out = next(n for n in nt.nodes if n.type == "OUTPUT_MATERIAL")
    vol = nt.nodes.new("ShaderNodeVolumePrincipled")
    vol.inputs["Density"].default_value = 0.0
    vol.inputs["Emission Strength"].default_value = 50.0
    vol.inputs["Emission Color"].default_value = (1.0, 0.3, 0.0, 1.0)
    nt.links.new(vol.outputs["Volume"], out.inputs["Volume"])
