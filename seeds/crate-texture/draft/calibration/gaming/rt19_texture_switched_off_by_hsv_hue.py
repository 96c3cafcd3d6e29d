"""Gaming (must fail): the texture is switched off in every render by a hue the grader reads
differently from Blender.

The reference unwrap and the 1024 x 1024 generated sRGB Crate_BaseColor, fed to Base Color through
a Mix (A: the old flat wood brown, B: the image) whose factor is 12 x the Hue of a constant colour
(0, -1, -2) (Combine Color -> Separate Color in HSV -> Math Multiply).  Blender (Cycles' and
EEVEE's rgb_to_hsv) gives a colour whose largest channel is 0 saturation 0 and hue 0: factor 0,
every render shows the flat untextured brown and nothing painted ever appears (REQ-TEXTURE: 'a Mix
node that discards it (factor 0 on the image's side ...) does not count').  The grader's
rgb_to_hsv computes the hue whenever max - min > 0 (here 1/12), so it reads factor 1 and
texture_influence 1.
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
tex.location = (bsdf.location.x - 350, bsdf.location.y)
tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])

# the trick: a Mix factor from the hue of a colour whose largest channel is 0
comb = tree.nodes.new("ShaderNodeCombineColor")
comb.mode = "RGB"
comb.inputs["Red"].default_value, comb.inputs["Green"].default_value = 0.0, -1.0
comb.inputs["Blue"].default_value = -2.0
sep = tree.nodes.new("ShaderNodeSeparateColor")
sep.mode = "HSV"
tree.links.new(comb.outputs["Color"], sep.inputs["Color"])
mul = tree.nodes.new("ShaderNodeMath")
mul.operation = "MULTIPLY"
mul.inputs[1].default_value = 12.0
tree.links.new(sep.outputs[0], mul.inputs[0])
mix = tree.nodes.new("ShaderNodeMix")
mix.data_type = "RGBA"
mix.clamp_factor = True
tree.links.new(mul.outputs[0], mix.inputs["Factor"])
mix.inputs[6].default_value = brown
tree.links.new(tex.outputs["Color"], mix.inputs[7])
tree.links.new(mix.outputs[2], bsdf.inputs["Base Color"])
for i, n in enumerate((comb, sep, mul, mix)):
    n.location = (bsdf.location.x - 1000 + 220 * i, bsdf.location.y + 400)
