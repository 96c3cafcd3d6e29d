"""Gaming (must fail): the texture sits on a Material Output no renderer reads (Light Output
nodes inside CrateWood win the output selection).

The reference unwrap and the 1024 x 1024 generated sRGB Crate_BaseColor, wired into the Base
Color of CrateWood's Principled BSDF on the (All) Material Output -- but CrateWood also holds two
Light Output nodes (a lamp's output node; one targets EEVEE, one Cycles), each fed by a copy of
the old untextured wood-brown Principled BSDF.  Blender's output selection
(ntreeShaderOutputNode / ShaderNodeTree.get_output_node) takes any shader output node type
(material, world, light) and prefers one targeting the engine over an All one: every EEVEE and
Cycles render shades the crate with the untextured brown BSDF; what the painter paints never
appears (REQ-TEXTURE: 'a texture on a shader or output the renderer does not use, does not
count').
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

# the trick: shader output nodes of other types, targeted per engine, fed by the untextured BSDF
plain = tree.nodes.new("ShaderNodeBsdfPrincipled")
plain.inputs["Base Color"].default_value = brown
plain.inputs["Roughness"].default_value = bsdf.inputs["Roughness"].default_value
plain.location = (bsdf.location.x, bsdf.location.y - 700)
for kind, target, dy in (("ShaderNodeOutputLight", "EEVEE", -500), ("ShaderNodeOutputLight", "CYCLES", -800)):
    out = tree.nodes.new(kind)
    out.target = target
    out.location = (bsdf.location.x + 400, bsdf.location.y + dy)
    tree.links.new(plain.outputs["BSDF"], out.inputs["Surface"])
