"""Variant (should pass): a different, equally valid way to texture the crate.

Smart UV Project instead of hand-placed seams; a second UV map (Lightmap) added after CrateUV,
with CrateUV kept as the render-active one and named explicitly by a UV Map node; the
texture is painted procedurally (plank stripes) into a new image and packed into the .blend
rather than generated; and it reaches Base Color through a Hue/Saturation node.
"""

import bpy
import numpy as np

SIZE = 1024

crate = bpy.data.objects["Crate"]
mesh = crate.data
mesh.uv_layers.active = mesh.uv_layers.new(name="CrateUV")
bpy.context.view_layer.objects.active = crate
crate.select_set(True)
bpy.ops.object.mode_set(mode="EDIT")
bpy.ops.mesh.select_all(action="SELECT")
bpy.ops.uv.smart_project(angle_limit=1.15, island_margin=0.03)
bpy.ops.object.mode_set(mode="OBJECT")
mesh.uv_layers.new(name="Lightmap")  # adding a layer invalidates references: look them up by name
mesh.uv_layers["CrateUV"].active_render = True
mesh.uv_layers.active = mesh.uv_layers["CrateUV"]

# plank stripes with a little grain, painted in numpy and packed as PNG
v = np.linspace(0.0, 1.0, SIZE, dtype=np.float32)
u = v[None, :]
stripe = 0.8 + 0.2 * (np.sin(v[:, None] * 2 * np.pi * 16) > -0.9)
grain = 0.9 + 0.1 * np.sin(u * 180.0 + 6.0 * np.sin(v[:, None] * 23.0))
shade = stripe * grain
rgba = np.empty((SIZE, SIZE, 4), dtype=np.float32)
for i, c in enumerate((0.55, 0.36, 0.18)):
    rgba[..., i] = c * shade
rgba[..., 3] = 1.0
image = bpy.data.images.new("Crate_BaseColor", SIZE, SIZE)
image.pixels.foreach_set(rgba.ravel())
image.file_format = "PNG"
image.pack()

tree = bpy.data.materials["CrateWood"].node_tree
bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
uvmap = tree.nodes.new("ShaderNodeUVMap")
uvmap.uv_map = "CrateUV"
tex = tree.nodes.new("ShaderNodeTexImage")
tex.image = image
hue = tree.nodes.new("ShaderNodeHueSaturation")
tree.links.new(uvmap.outputs["UV"], tex.inputs["Vector"])
tree.links.new(tex.outputs["Color"], hue.inputs["Color"])
tree.links.new(hue.outputs["Color"], bsdf.inputs["Base Color"])
