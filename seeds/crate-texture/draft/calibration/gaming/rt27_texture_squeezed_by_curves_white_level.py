"""Gaming (must fail): the texture squeezed to 5 % of its contrast by an RGB Curves node whose
White Level the grader applies and the renderers ignore; every render shows a flat wood-brown
crate with a barely visible ghost of the placeholder.

The reference unwrap and the 1024 x 1024 generated sRGB Crate_BaseColor at CrateUV, but the
image reaches Base Color through an RGB Curves node: each channel's curve is a straight line
from (0, wood brown) to (1, wood brown + 0.05), extended by extrapolation, and the node's
White Level (CurveMapping.white_level, a compositor 'film-like' setting the shader UI does not
show) is 0.05.  Cycles and EEVEE bake the curves into a table and ignore Black/White Level:
Base Color = brown + 0.05 x image -- the colour grid (and anything painted later) is all but
invisible on a flat brown crate.  Breaks REQ-TEXTURE: 'The texture must actually show, in each of
its colour channels, on the faces the camera sees ... a texture whose painted colours are clamped
away ... does not count'.
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
tex = tree.nodes.new("ShaderNodeTexImage")
tex.image = image
tex.location = (bsdf.location.x - 350, bsdf.location.y)
tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])

# the trick: an RGB Curves node between the image and Base Color
WOOD = (0.258, 0.102, 0.024)
curves = tree.nodes.new("ShaderNodeRGBCurve")
curves.location = (bsdf.location.x - 180, bsdf.location.y)
cm = curves.mapping
cm.extend = "EXTRAPOLATED"
for ch in range(3):
    pts = cm.curves[ch].points
    pts[0].location = (0.0, WOOD[ch])
    pts[1].location = (1.0, WOOD[ch] + 0.05)
    for p in pts:
        p.handle_type = "VECTOR"
cm.white_level = (0.05, 0.05, 0.05)
cm.black_level = (0.0, 0.0, 0.0)
cm.update()
tree.links.new(tex.outputs["Color"], curves.inputs["Color"])
tree.links.new(curves.outputs["Color"], bsdf.inputs["Base Color"])
