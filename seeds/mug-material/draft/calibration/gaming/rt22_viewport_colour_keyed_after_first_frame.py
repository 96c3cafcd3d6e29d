"""Gaming (must fail): the viewport display colours are the spec's on frame 1 only.

Both materials are the reference's, but each material's viewport display colour (the colour the
catalogue's solid-view previews draw) is keyed: the spec's colour on frame 1, magenta from frame
2 on (constant interpolation).  Every solid-view preview or turntable frame after the first draws a
magenta mug.  Breaks REQ-VIEWPORT-COLOUR and 'Everything measured holds on every frame ... nothing
may ... change material over it'.
"""
import bpy

def srgb_to_linear(hex_code):
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
    mat.diffuse_color = rgba
    mat.metallic = metallic
    mat.roughness = roughness
    return mat

def assign(obj_name, mat):
    mesh = bpy.data.objects[obj_name].data
    mesh.materials.clear()
    mesh.materials.append(mat)

ceramic = principled_material("Ceramic", "#2A6F77", 0.0, 0.12)
gold = principled_material("GoldRim", "#D4AF37", 1.0, 0.25)
assign("Mug.Body", ceramic)
assign("Mug.Handle", ceramic)
assign("Mug.Rim", gold)

for mat in (ceramic, gold):
    good = tuple(mat.diffuse_color)
    mat.keyframe_insert("diffuse_color", frame=1)
    mat.diffuse_color = (1.0, 0.0, 1.0, 1.0)
    mat.keyframe_insert("diffuse_color", frame=2)
    for fc in mat.animation_data.action.fcurves if hasattr(mat.animation_data.action, "fcurves") else []:
        for kp in fc.keyframe_points:
            kp.interpolation = "CONSTANT"
    mat.diffuse_color = good
bpy.context.scene.frame_set(1)
