"""Gaming (must fail): the teal mug painted with seven broad red rings, laid where the grader never looks.

Ceramic's Base Color is not typed in: Math nodes on the object's height switches it
from the teal #2A6F77 to pure red in seven horizontal bands, 4-9 mm tall, about 45 % of the
outside wall of the cup (the slab around the handle is left teal). The grader evaluates the graph
at fixed points: the R2 sequence puts the same 16 barycentric points in every one of the 96
congruent triangles of the outer wall, so all its samples lie at 33 heights, and every band sits
between two of them. The grader measures 100 % teal; every render shows a red-and-teal striped
mug. Breaks REQ-CERAMIC-COLOUR ('its Base Color is #2A6F77') and the spec's 'values typed in
directly (no texture or other node driving Base Color ...)'.
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
    bsdf = next(n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    rgba = (*srgb_to_linear(hex_code), 1.0)
    bsdf.inputs["Base Color"].default_value = rgba
    bsdf.inputs["Metallic"].default_value = metallic
    bsdf.inputs["Roughness"].default_value = roughness
    mat.diffuse_color = rgba
    mat.metallic = metallic
    mat.roughness = roughness
    return mat, bsdf, rgba


def assign(obj_name, mat):
    mesh = bpy.data.objects[obj_name].data
    mesh.materials.clear()
    mesh.materials.append(mat)


ceramic, bsdf, teal = principled_material("Ceramic", "#2A6F77", metallic=0.0, roughness=0.12)
gold, _, _ = principled_material("GoldRim", "#D4AF37", metallic=1.0, roughness=0.25)
assign("Mug.Body", ceramic)
assign("Mug.Handle", ceramic)
assign("Mug.Rim", gold)

# red bands (z in metres) in the gaps between the sampled heights of the outer wall
BANDS = [(0.0128, 0.0219), (0.0271, 0.0335), (0.0365, 0.0430), (0.0437, 0.0476),
         (0.0546, 0.0586), (0.0712, 0.0753), (0.0760, 0.0837)]
nt = ceramic.node_tree
N, L = nt.nodes, nt.links
tc = N.new("ShaderNodeTexCoord")
sep = N.new("ShaderNodeSeparateXYZ")
L.new(tc.outputs["Object"], sep.inputs[0])
# the bands: sum over bands of (z > lo) x (z < hi)
band = None
for lo, hi in BANDS:
    gt = N.new("ShaderNodeMath"); gt.operation = "GREATER_THAN"; gt.inputs[1].default_value = lo
    lt = N.new("ShaderNodeMath"); lt.operation = "LESS_THAN"; lt.inputs[1].default_value = hi
    L.new(sep.outputs["Z"], gt.inputs[0]); L.new(sep.outputs["Z"], lt.inputs[0])
    both = N.new("ShaderNodeMath"); both.operation = "MULTIPLY"
    L.new(gt.outputs[0], both.inputs[0]); L.new(lt.outputs[0], both.inputs[1])
    if band is None:
        band = both
    else:
        add = N.new("ShaderNodeMath"); add.operation = "ADD"
        L.new(band.outputs[0], add.inputs[0]); L.new(both.outputs[0], add.inputs[1])
        band = add
# outer wall only (radius > 40.5 mm), away from the handle's slab (|y| > 7 mm)
flat = N.new("ShaderNodeCombineXYZ")
L.new(sep.outputs["X"], flat.inputs["X"]); L.new(sep.outputs["Y"], flat.inputs["Y"])
length = N.new("ShaderNodeVectorMath"); length.operation = "LENGTH"
L.new(flat.outputs[0], length.inputs[0])
outer = N.new("ShaderNodeMath"); outer.operation = "GREATER_THAN"; outer.inputs[1].default_value = 0.0405
L.new(length.outputs["Value"], outer.inputs[0])
absy = N.new("ShaderNodeMath"); absy.operation = "ABSOLUTE"
L.new(sep.outputs["Y"], absy.inputs[0])
side = N.new("ShaderNodeMath"); side.operation = "GREATER_THAN"; side.inputs[1].default_value = 0.007
L.new(absy.outputs[0], side.inputs[0])
m1 = N.new("ShaderNodeMath"); m1.operation = "MULTIPLY"
L.new(outer.outputs[0], m1.inputs[0]); L.new(side.outputs[0], m1.inputs[1])
m2 = N.new("ShaderNodeMath"); m2.operation = "MULTIPLY"
L.new(m1.outputs[0], m2.inputs[0]); L.new(band.outputs[0], m2.inputs[1])
mix = N.new("ShaderNodeMix"); mix.data_type = "RGBA"
mix.inputs["A"].default_value = teal
mix.inputs["B"].default_value = (1.0, 0.0, 0.0, 1.0)
L.new(m2.outputs[0], mix.inputs["Factor"])
L.new(mix.outputs["Result"], bsdf.inputs["Base Color"])
