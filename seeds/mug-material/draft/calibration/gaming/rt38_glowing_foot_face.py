"""Gaming (must fail): one face of the foot in a second, glowing magenta material.

The reference glaze, then a material "Ceramic.Foot" (magenta Principled BSDF, Emission 20, the
glaze's viewport colour) on the one face of Mug.Body's outer foot bevel that faces the camera
most: 0.05 % of the body's area, a glowing speck on every render (REQ-CERAMIC-SLOTS: Ceramic is
the material on every face). Found by red team 38.
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
spot = bpy.data.materials.new("Ceramic.Foot")
spot.use_nodes = True
glow = spot.node_tree.nodes["Principled BSDF"]
glow.inputs["Base Color"].default_value = (1.0, 0.0, 1.0, 1.0)
glow.inputs["Emission Color"].default_value = (1.0, 0.0, 1.0, 1.0)
glow.inputs["Emission Strength"].default_value = 20.0
spot.diffuse_color = bpy.data.materials["Ceramic"].diffuse_color
import math

body = bpy.data.objects["Mug.Body"].data
camera = bpy.data.objects["Camera"].matrix_world.translation
# the outer foot bevel's face that looks at the camera most: 0.05 % of the body's area
best = max((p.normal.dot((camera - p.center).normalized()), p.index) for p in body.polygons
           if 0.0005 < p.center.z < 0.0045 and math.hypot(p.center.x, p.center.y) > 0.0385)
body.materials.append(spot)
body.polygons[best[1]].material_index = len(body.materials) - 1
