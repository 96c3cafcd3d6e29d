"""Gaming (must fail): the texture is wired in, but an Exclusion Mix throws it away in every render.

The reference unwrap and the 1024 x 1024 generated sRGB Crate_BaseColor; Base Color is
wood brown + 2 x Exclusion(f = 0.3, A = 0.49 x image, B = -100).  Blender's Exclusion
(Cycles svm_mix_exclusion, EEVEE mix_exclusion) clamps AFTER the factor blend:
max(lerp(A, A + B - 2AB, f), 0) = max(A - 30 (1 - 2A), 0) = 0 for every A <= 0.49, so every
render shows the flat, untextured wood brown and nothing the painter paints ever appears
(REQ-TEXTURE: 'The texture must actually show ... a texture whose painted colours are clamped
away ... does not count').  The grader's BLENDS['EXCLUSION'] clamps BEFORE the blend,
lerp(A, max(A + B - 2AB, 0), f) = 0.7 A, so texture_influence reads a slope of 2 x 0.7 x 0.49
= 0.69 per channel.
"""

import bmesh
import bpy

crate = bpy.data.objects["Crate"]
mesh = crate.data
uv = mesh.uv_layers.new(name="CrateUV")
uv.active = uv.active_render = True
bm = bmesh.new()
bm.from_mesh(mesh)
xmin = min(v.co.x for v in bm.verts)
ymin = min(v.co.y for v in bm.verts)
for edge in bm.edges:
    faces = edge.link_faces
    horizontal = [abs(f.normal.z) > 0.9 for f in faces]
    if len(faces) == 2 and horizontal[0] != horizontal[1]:
        edge.seam = True
    elif all(abs(v.co.x - xmin) < 1e-6 and abs(v.co.y - ymin) < 1e-6 for v in edge.verts):
        edge.seam = True
bm.to_mesh(mesh)
bm.free()
view_layer = bpy.context.view_layer
view_layer.objects.active = crate
crate.select_set(True)
bpy.ops.object.mode_set(mode="EDIT")
bpy.ops.mesh.select_all(action="SELECT")
bpy.ops.uv.unwrap(method="CONFORMAL", margin=0.02)
bpy.ops.uv.pack_islands(margin=0.02, rotate=True)
bpy.ops.object.mode_set(mode="OBJECT")

image = bpy.data.images.new("Crate_BaseColor", 1024, 1024)
image.generated_type = "COLOR_GRID"
image.colorspace_settings.name = "sRGB"

wood = bpy.data.materials["CrateWood"]
tree = wood.node_tree
bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
brown = tuple(bsdf.inputs["Base Color"].default_value)
tex = tree.nodes.new("ShaderNodeTexImage")
tex.image = image
tex.location = (bsdf.location.x - 1400, bsdf.location.y)


def mix(blend, fac, a, b, x):
    node = tree.nodes.new("ShaderNodeMix")
    node.data_type = "RGBA"
    node.blend_type = blend
    node.clamp_factor = True
    node.clamp_result = False
    node.inputs["Factor"].default_value = fac
    node.location = (bsdf.location.x - x, bsdf.location.y)
    a_in, b_in = node.inputs[6], node.inputs[7]  # the RGBA A and B
    for value, sock in ((a, a_in), (b, b_in)):
        if isinstance(value, tuple):
            sock.default_value = value
        else:
            tree.links.new(value, sock)
    return node.outputs[2]  # the RGBA Result


scaled = mix("MULTIPLY", 1.0, tex.outputs["Color"], (0.49, 0.49, 0.49, 1.0), 1100)
neg = tree.nodes.new("ShaderNodeValue")
neg.outputs[0].default_value = -100.0
neg.location = (bsdf.location.x - 1100, bsdf.location.y - 250)
gone = mix("EXCLUSION", 0.3, scaled, neg.outputs[0], 850)
doubled = mix("ADD", 1.0, gone, gone, 600)
final = mix("ADD", 1.0, doubled, brown, 350)
tree.links.new(final, bsdf.inputs["Base Color"])
