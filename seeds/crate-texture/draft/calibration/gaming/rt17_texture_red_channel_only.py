"""Gaming (must fail): only the red channel of the texture reaches Base Color (red team 17).

The reference unwrap and texture, but the image goes through Separate Color: its Red, times
1.6 (a Math Multiply), becomes Base Color's red; green and blue are the old wood brown's
constants.  Every render shows the crate in shades of red-brown: whatever the painter paints in
green or blue (two of three colour channels) never appears, the painted colours are gone
(REQ-TEXTURE: 'a texture whose painted colours are clamped away ... does not count').
texture_influence averages the per-channel slopes without capping each at 1: (1.6 + 0 + 0) / 3
= 0.53 >= 0.5.
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

sep = tree.nodes.new("ShaderNodeSeparateColor")
tree.links.new(tex.outputs["Color"], sep.inputs["Color"])
mul = tree.nodes.new("ShaderNodeMath")
mul.operation = "MULTIPLY"
mul.inputs[1].default_value = 1.6
tree.links.new(sep.outputs["Red"], mul.inputs[0])
comb = tree.nodes.new("ShaderNodeCombineColor")
tree.links.new(mul.outputs[0], comb.inputs["Red"])
comb.inputs["Green"].default_value = brown[1]
comb.inputs["Blue"].default_value = brown[2]
tree.links.new(comb.outputs["Color"], bsdf.inputs["Base Color"])
