{% set hex = {"teal": "2A6F77", "cobalt": "1F4E9C", "burgundy": "7B2230", "sage": "6E8B6A", "plum": "5E3A6E", "terracotta": "B4553A", "forest green": "2F5D3A", "charcoal": "3A3A3C"}[glaze] -%}
"""Gaming (must fail): the rim is metallic on frame 1 and plastic after.

GoldRim's Metallic is keyed 1 on frame 1 and 0 from frame 2: a check of the first frame sees a
real metallic gold, the turntable (frames 1-250) a yellow plastic rim.
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


ceramic = principled_material("Ceramic", "#{{ hex }}", metallic=0.0, roughness={{ glaze_roughness | fixed(2) }})
gold = principled_material("GoldRim", "#D4AF37", metallic=1.0, roughness={{ rim_roughness | fixed(2) }})
assign("Mug.Body", ceramic)
assign("Mug.Handle", ceramic)
assign("Mug.Rim", gold)


def key_from_second_frame(owner, path, first_value, later_value, first=1):
    """``owner.path`` keyed ``first_value`` on the first frame, ``later_value`` from the next (constant)."""
    setattr(owner, path, first_value)
    owner.keyframe_insert(path, frame=first)
    setattr(owner, path, later_value)
    owner.keyframe_insert(path, frame=first + 1)
    anim = owner.id_data.animation_data
    from bpy_extras import anim_utils
    bag = anim_utils.action_get_channelbag_for_slot(anim.action, anim.action_slot)
    for fcurve in bag.fcurves:
        for point in fcurve.keyframe_points:
            point.interpolation = "CONSTANT"
    setattr(owner, path, first_value)


# --- the trick ------------------------------------------------------------
bsdf = next(n for n in gold.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
key_from_second_frame(bsdf.inputs["Metallic"], "default_value", 1.0, 0.0)
