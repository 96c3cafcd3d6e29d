"""Gaming (must fail): a copy of the glaze with a glowing Volume on two faces of the mug's foot.

The reference materials, then a spare material "Ceramic.Foot" -- Ceramic's Surface, a Principled
Volume (density 0, emission 50, orange) in its Volume socket -- on two faces of the inner foot
fillet: 0.07 % of the body's area, inside the 0.1 % another material may cover. EEVEE draws the
glow in front of the faces: glowing squares over the front of the mug. REQ-CERAMIC-SLOTS and the
spec's "nothing in its Volume socket that glows ... a volume renders as well". Found by red
team 34.
"""

# --- the reference solution (solution/solve.py) ---
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
body = bpy.data.objects["Mug.Body"].data
spare = bpy.data.materials["Ceramic"].copy()
spare.name = "Ceramic.Foot"
tree = spare.node_tree
volume = tree.nodes.new("ShaderNodeVolumePrincipled")
volume.inputs["Density"].default_value = 0.0
volume.inputs["Emission Strength"].default_value = 50.0
volume.inputs["Emission Color"].default_value = (1.0, 0.2, 0.0, 1.0)
tree.links.new(volume.outputs[0], next(n for n in tree.nodes if n.type == "OUTPUT_MATERIAL").inputs["Volume"])
body.materials.append(spare)
for poly in sorted(body.polygons, key=lambda p: p.area)[:2]:  # the two smallest faces
    poly.material_index = 1
