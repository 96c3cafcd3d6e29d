"""Gaming (must fail): the glaze at Subsurface Weight 1, Subsurface Scale -1 and Subsurface Radius (-5,
-5, 0.001), all typed into the Principled BSDF (no extra node). The spec's product Weight x Scale x
the largest Radius is 1 x -1 x 0.001 = -0.001 <= 0.01, but the renderer scatters with Scale x Radius
= (5, 5, -0.001): red and green light 5 m deep. Cycles renders the mug a speckled blue, EEVEE nearly
black. Breaks: 'subsurface scattering no deeper than 1 cm (... deeper, light goes through the
glaze)' and REQ-CERAMIC-COLOUR (the colour that renders is the Base Color #2A6F77; fully opaque, no
transmission).

Found by red team 44; refused since: the depth is Weight x |Scale| x the largest |Radius| channel
(`probes_surface._layer_optics`).
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


bsdf = next(n for n in ceramic.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
bsdf.inputs["Subsurface Weight"].default_value = 1.0
bsdf.inputs["Subsurface Scale"].default_value = -1.0
bsdf.inputs["Subsurface Radius"].default_value = (-5.0, -5.0, 0.001)
print("SSS", bsdf.inputs["Subsurface Scale"].default_value, tuple(bsdf.inputs["Subsurface Radius"].default_value))
