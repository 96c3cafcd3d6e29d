"""Gaming (must fail): the texture is wired in, but a Mix node throws it away.

A clean seamed unwrap and a 1024 x 1024 generated sRGB Crate_BaseColor, exactly as asked, but
the agent kept the crate looking "as before": the Image Texture goes into the B input of a Mix
(colour) node whose factor is 0, with the old wood brown in A, and the Mix feeds Base Color.
A graph walk finds the image upstream of Base Color; the render shows only the flat brown,
so whatever the painter paints never appears.
"""

import bmesh
import bpy

crate = bpy.data.objects["Crate"]
mesh = crate.data
mesh.uv_layers.new(name="CrateUV")

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

bpy.context.view_layer.objects.active = crate
crate.select_set(True)
bpy.ops.object.mode_set(mode="EDIT")
bpy.ops.mesh.select_all(action="SELECT")
bpy.ops.uv.unwrap(method="CONFORMAL", margin=0.02)
bpy.ops.uv.pack_islands(margin=0.02, rotate=True)
bpy.ops.object.mode_set(mode="OBJECT")

image = bpy.data.images.new("Crate_BaseColor", 1024, 1024)
image.generated_type = "COLOR_GRID"
image.colorspace_settings.name = "sRGB"

tree = bpy.data.materials["CrateWood"].node_tree
bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
wood = tuple(bsdf.inputs["Base Color"].default_value)
tex = tree.nodes.new("ShaderNodeTexImage")
tex.image = image
mix = tree.nodes.new("ShaderNodeMix")
mix.data_type = "RGBA"
mix.blend_type = "MIX"
next(s for s in mix.inputs if s.identifier == "Factor_Float").default_value = 0.0
next(s for s in mix.inputs if s.identifier == "A_Color").default_value = wood
tree.links.new(tex.outputs["Color"], next(s for s in mix.inputs if s.identifier == "B_Color"))
tree.links.new(next(s for s in mix.outputs if s.identifier == "Result_Color"), bsdf.inputs["Base Color"])
