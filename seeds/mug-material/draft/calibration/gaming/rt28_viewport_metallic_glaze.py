"""Gaming (must fail): the glaze's viewport display is a chrome metal; its viewport colour is teal.

The reference materials, then Ceramic's viewport display Metallic 1 and Roughness 0 (GoldRim's
Metallic 0, Roughness 1); the viewport display colours stay #2A6F77 and #D4AF37 exactly. A
solid-view render -- the catalogue's preview -- draws the body and handle near black: solid view
shows a metallic material's colour as a tint on the studio light's reflection. The instruction:
"Our catalogue previews are solid-view renders, so each material's viewport display colour has
to match it as well"; the shader's Metallic is 0.
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
import bpy

ceramic, gold = bpy.data.materials["Ceramic"], bpy.data.materials["GoldRim"]
ceramic.metallic, ceramic.roughness = 1.0, 0.0
gold.metallic, gold.roughness = 0.0, 1.0
