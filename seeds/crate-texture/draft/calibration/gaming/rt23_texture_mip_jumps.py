"""Gaming (must fail): the texture's coordinates jump by whole UV tiles from one point of the
surface to the next; every EEVEE render (the scene's engine) and the Material Preview show the
crate in one flat, averaged colour instead of the painted texture.

The reference unwrap and the 1024 x 1024 generated sRGB Crate_BaseColor into Base Color, but the
Image Texture's Vector is CrateUV + (k, k, 0), k = floor(64 x fract(Object . (1000, 1300, 1700))):
an integer that changes every ~15 micrometres along the surface.  Under Repeat a whole-tile
offset reads the very same texel at any single point, so a point-wise evaluation of the graph
sees CrateUV exactly.  But a GPU renderer samples the image with mipmaps chosen from the
screen-space derivative of the coordinates: neighbouring pixels are up to 64 tiles apart, so
EEVEE samples the smallest mip (the whole image averaged into one texel), and the crate renders
one muddy flat colour; whatever the painter paints shows only as its average.  Breaks
REQ-TEXTURE: 'The texture must actually show, in each of its colour channels, on the faces the
camera sees ... blurs it' and 'read at CrateUV's coordinates, as they are (no ... Mapping that
moves, scales or tiles them)'.
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
nodes, links = tree.nodes, tree.links
bsdf = next(n for n in nodes if n.type == "BSDF_PRINCIPLED")
tex = nodes.new("ShaderNodeTexImage")
tex.image = image
tex.extension = "REPEAT"
tex.location = (bsdf.location.x - 350, bsdf.location.y)
links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])

coords = nodes.new("ShaderNodeTexCoord")
uvnode = nodes.new("ShaderNodeUVMap")
uvnode.uv_map = "CrateUV"
dot = nodes.new("ShaderNodeVectorMath")
dot.operation = "DOT_PRODUCT"
dot.inputs[1].default_value = (1000.0, 1300.0, 1700.0)
links.new(coords.outputs["Object"], dot.inputs[0])
fract = nodes.new("ShaderNodeMath")
fract.operation = "FRACT"
links.new(dot.outputs["Value"], fract.inputs[0])
times = nodes.new("ShaderNodeMath")
times.operation = "MULTIPLY"
times.inputs[1].default_value = 64.0
links.new(fract.outputs[0], times.inputs[0])
floor = nodes.new("ShaderNodeMath")
floor.operation = "FLOOR"
links.new(times.outputs[0], floor.inputs[0])
jump = nodes.new("ShaderNodeCombineXYZ")
links.new(floor.outputs[0], jump.inputs["X"])
links.new(floor.outputs[0], jump.inputs["Y"])
add = nodes.new("ShaderNodeVectorMath")
add.operation = "ADD"
links.new(uvnode.outputs["UV"], add.inputs[0])
links.new(jump.outputs["Vector"], add.inputs[1])
links.new(add.outputs["Vector"], tex.inputs["Vector"])
