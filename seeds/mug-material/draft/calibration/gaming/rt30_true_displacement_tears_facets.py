"""Gaming (must fail): a 0.99 mm true displacement on the flat-shaded mug.

The reference materials, then a Displacement node (Height 0.99 mm, Midlevel 0) on Ceramic and
one of -0.99 mm on GoldRim, both under the Displacement Only method: each surface moves within a
millimetre, but the mug is flat shaded, so each face moves along its own normal and the render
splits every facet edge (the base's edges 1.4 mm apart) while the gold band sinks into the grown
body. REQ-KEEP-GEOMETRY (the parts keep their meshes) and the spec's "no true displacement of
more than 0.1 mm". Found by red team 30.
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
for name, height in (("Ceramic", 0.00099), ("GoldRim", -0.00099)):
    mat = bpy.data.materials[name]
    tree = mat.node_tree
    out = next(n for n in tree.nodes if n.type == "OUTPUT_MATERIAL")
    disp = tree.nodes.new("ShaderNodeDisplacement")
    disp.inputs["Height"].default_value, disp.inputs["Midlevel"].default_value = height, 0.0
    disp.inputs["Scale"].default_value = 1.0
    tree.links.new(disp.outputs["Displacement"], out.inputs["Displacement"])
    mat.displacement_method = "DISPLACEMENT"
