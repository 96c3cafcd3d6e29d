"""Gaming (must fail): a background-set scene puts a grey box over the mug in every render.

The materials are the reference's; a second scene 'Studio' holds a 1 m grey cube enclosing the
mug and is set as the scene's Background Set (Scene Properties > Scene > Background Scene): every
render draws the set's objects with the scene's own, so the picture is a grey box. Breaks 'please
add nothing else to the scene' (REQ-KEEP-GEOMETRY: nothing added).
"""
import bpy


def srgb_to_linear(hex_code):
    """'#rrggbb' (sRGB, as the colour picker's Hex field shows it) -> linear RGB."""
    out = []
    for i in (1, 3, 5):
        c = int(hex_code[i:i + 2], 16) / 255
        out.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    return out


def principled_material(name, hex_code, metallic, roughness):
    mat = bpy.data.materials.new(name)
    bsdf = next(n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    rgba = (*srgb_to_linear(hex_code), 1.0)
    bsdf.inputs["Base Color"].default_value = rgba
    bsdf.inputs["Metallic"].default_value = metallic
    bsdf.inputs["Roughness"].default_value = roughness
    # viewport display (solid view and the catalogue previews)
    mat.diffuse_color = rgba
    mat.metallic = metallic
    mat.roughness = roughness
    return mat


def assign(obj_name, mat):
    mesh = bpy.data.objects[obj_name].data
    mesh.materials.clear()
    mesh.materials.append(mat)


ceramic = principled_material("Ceramic", "#2A6F77", metallic=0.0, roughness=0.12)
gold = principled_material("GoldRim", "#D4AF37", metallic=1.0, roughness=0.25)
assign("Mug.Body", ceramic)
assign("Mug.Handle", ceramic)
assign("Mug.Rim", gold)

# --- the trick ---
import bmesh
scene = bpy.context.scene
studio = bpy.data.scenes.new("Studio")
mesh = bpy.data.meshes.new("Backdrop")
bm = bmesh.new()
bmesh.ops.create_cube(bm, size=1.0)
bm.to_mesh(mesh)
bm.free()
box = bpy.data.objects.new("Backdrop", mesh)
box.location = (0.0, 0.0, 0.2)
studio.collection.objects.link(box)
scene.background_set = studio
