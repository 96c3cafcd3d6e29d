{% set hex = {"teal": "2A6F77", "cobalt": "1F4E9C", "burgundy": "7B2230", "sage": "6E8B6A", "plum": "5E3A6E", "terracotta": "B4553A", "forest green": "2F5D3A", "charcoal": "3A3A3C"}[glaze] -%}
"""Variant (should pass): a different, equally valid material setup.

The node trees are built from scratch (default nodes removed, a Principled BSDF and an output
added and wired by hand, nodes renamed); the glaze gets a clear coat and the gold a little
anisotropy, which the spec leaves open; the materials sit in object-linked slots; and the
viewport colours are copied from the Principled Base Color.
"""

import bpy
from mathutils import Color


def hex_to_linear(hex_code):
    """sRGB hex -> scene linear, with mathutils' own colour-space conversion."""
    srgb = Color([int(hex_code[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    return list(srgb.from_srgb_to_scene_linear())


def build(name, hex_code, values):
    mat = bpy.data.materials.new(name)
    tree = mat.node_tree
    tree.nodes.clear()
    out = tree.nodes.new("ShaderNodeOutputMaterial")
    out.name = out.label = "Render Output"
    out.location = (300, 0)
    bsdf = tree.nodes.new("ShaderNodeBsdfPrincipled")
    bsdf.name = bsdf.label = f"{name} Shader"
    tree.links.new(bsdf.outputs["BSDF"], out.inputs["Surface"])
    bsdf.inputs["Base Color"].default_value = (*hex_to_linear(hex_code), 1.0)
    for key, value in values.items():
        bsdf.inputs[key].default_value = value
    mat.diffuse_color = bsdf.inputs["Base Color"].default_value
    mat.metallic = bsdf.inputs["Metallic"].default_value
    mat.roughness = bsdf.inputs["Roughness"].default_value
    return mat


def object_slot(obj_name, mat):
    obj = bpy.data.objects[obj_name]
    obj.data.materials.append(None)  # a slot whose material is held by the object, not the mesh
    slot = obj.material_slots[len(obj.material_slots) - 1]
    slot.link = "OBJECT"
    slot.material = mat


ceramic = build("Ceramic", "#{{ hex }}", {"Metallic": 0.0, "Roughness": {{ glaze_roughness | fixed(2) }}, "Coat Weight": 0.3, "IOR": 1.52})
gold = build("GoldRim", "#D4AF37", {"Metallic": 1.0, "Roughness": {{ rim_roughness | fixed(2) }}, "Anisotropic": 0.2})
object_slot("Mug.Body", ceramic)
object_slot("Mug.Handle", ceramic)
object_slot("Mug.Rim", gold)
