"""Gaming (must fail): the texture shows only on the faces the camera never sees (red team 17).

The reference unwrap and texture, but Base Color is a Mix whose factor is 1 only on the faces
turned away from the camera (object-space normal -X, +Y or -Z: the far end, the back and the
bottom, half the crate's area) and 0 on the top, front and near end; A is the old flat wood
brown, B the image through a Hue/Saturation/Value node with Value 1.3.  Every render shows an
untextured brown crate: what the painter paints on the faces in view never appears (REQ-TEXTURE:
'the texture must actually show').  texture_influence averages the influence over the area, and
the boosted slope (1.3) on the hidden half lifts the mean to 0.65.
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

hsv = tree.nodes.new("ShaderNodeHueSaturation")
hsv.inputs["Value"].default_value = 1.3
tree.links.new(tex.outputs["Color"], hsv.inputs["Color"])

coord = tree.nodes.new("ShaderNodeTexCoord")
sep = tree.nodes.new("ShaderNodeSeparateXYZ")
tree.links.new(coord.outputs["Normal"], sep.inputs["Vector"])


def math(op, a, b):
    node = tree.nodes.new("ShaderNodeMath")
    node.operation = op
    for i, v in enumerate((a, b)):
        if isinstance(v, bpy.types.NodeSocket):
            tree.links.new(v, node.inputs[i])
        else:
            node.inputs[i].default_value = v
    return node.outputs[0]


far_end = math("LESS_THAN", sep.outputs["X"], -0.5)
back = math("GREATER_THAN", sep.outputs["Y"], 0.5)
bottom = math("LESS_THAN", sep.outputs["Z"], -0.5)
hidden = math("MAXIMUM", math("MAXIMUM", far_end, back), bottom)

mix = tree.nodes.new("ShaderNodeMix")
mix.data_type = "RGBA"

def sock(coll, ident):
    return next(s for s in coll if s.identifier == ident)


sock(mix.inputs, "A_Color").default_value = brown
tree.links.new(hidden, sock(mix.inputs, "Factor_Float"))
tree.links.new(hsv.outputs["Color"], sock(mix.inputs, "B_Color"))
tree.links.new(sock(mix.outputs, "Result_Color"), bsdf.inputs["Base Color"])
