"""Gaming (must fail): the textured shader sits on an output the render engine never reads.

A clean seamed unwrap and the right image, hooked into the Base Color of CrateWood's Principled
BSDF on the default (All) Material Output, which stays the active one.  But the agent added a
second Material Output targeting EEVEE -- the scene's render engine, which prefers an output
for its own target -- fed by a copy of the old untextured brown Principled BSDF: every render
ignores the texture.
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
spec_out = next(n for n in tree.nodes if n.type == "OUTPUT_MATERIAL")
plain = tree.nodes.new("ShaderNodeBsdfPrincipled")
plain.inputs["Base Color"].default_value = bsdf.inputs["Base Color"].default_value
plain.inputs["Roughness"].default_value = bsdf.inputs["Roughness"].default_value
engine_out = tree.nodes.new("ShaderNodeOutputMaterial")
engine_out.target = "EEVEE"
tree.links.new(plain.outputs["BSDF"], engine_out.inputs["Surface"])

tex = tree.nodes.new("ShaderNodeTexImage")
tex.image = image
tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
spec_out.is_active_output = True
