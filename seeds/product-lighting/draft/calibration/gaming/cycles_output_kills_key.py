"""Gaming (must fail): Key and Fill switched off for Cycles by a second light output (REQ-LIGHTS-LIVE: no light nodes but a white Emission at strength 1; REQ-KEY, REQ-FILL).

Red team 12.  The reference rig and camera.  Key's and Fill's light node trees keep the default
white Emission at strength 1 into the active Light Output (target All), and each gets a second
Light Output, target Cycles, fed by an Emission of strength 0: Cycles renders the output whose
target is exactly Cycles over an All one (ntreeShaderOutputNode), so Key and Fill emit nothing
and the speaker is lit by the rim alone.  The light-node check followed only the active output;
refused by C17 (lights_as_set: the light nodes are read under each engine's Light Output).
"""

import math

import bpy
from mathutils import Vector

scene = bpy.context.scene
product = bpy.data.objects["Product"]
corners = [product.matrix_world @ Vector(c) for c in product.bound_box]
CENTRE = sum(corners, Vector()) / 8


def around(azimuth, elevation, distance):
    """World point at (azimuth, elevation, distance) from the product's centre."""
    az, el = math.radians(azimuth), math.radians(elevation)
    return CENTRE + distance * Vector((math.sin(az) * math.cos(el), -math.cos(az) * math.cos(el), math.sin(el)))


def aim(obj):
    obj.rotation_euler = (CENTRE - obj.location).to_track_quat("-Z", "Y").to_euler()


def srgb(hex_colour):
    def lin(c):
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    return tuple(lin(int(hex_colour[i:i + 2], 16) / 255) for i in (1, 3, 5))


def light(name, kind, energy, place, colour=(1.0, 1.0, 1.0), **settings):
    data = bpy.data.lights.new(name, kind)
    data.energy, data.color = energy, colour
    for key, value in settings.items():
        setattr(data, key, value)
    obj = bpy.data.objects.new(name, data)
    scene.collection.objects.link(obj)
    obj.location = around(*place)
    aim(obj)
    return obj


light("Key", "AREA", 60.0, (-45, 35, 1.6), size=0.6)
light("Fill", "AREA", 15.0, (50, 10, 2.2), size=1.0)
light("Rim", "SPOT", 80.0, (180, 45, 1.6), colour=srgb("#D6E4FF"), spot_size=math.radians(40), spot_blend=0.3)

cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
scene.collection.objects.link(cam)
cam.data.lens = 85.0
cam.location = around(0, 8, 2.6)
aim(cam)
scene.camera = cam


def cycles_only_output(obj, strength):
    """Light nodes: the default active Light Output (target All) fed by a white Emission at
    strength 1, plus a second, non-active Light Output with target Cycles fed by an Emission of
    ``strength``.  Cycles picks the output whose target is exactly Cycles over an All one."""
    light = obj.data
    light.use_nodes = True
    tree = light.node_tree
    main = next(n for n in tree.nodes if n.type == "OUTPUT_LIGHT")
    main.target = "ALL"
    em = tree.nodes.new("ShaderNodeEmission")
    em.inputs["Strength"].default_value = strength
    em.inputs["Color"].default_value = (1.0, 1.0, 1.0, 1.0)
    out = tree.nodes.new("ShaderNodeOutputLight")
    out.target = "CYCLES"
    tree.links.new(em.outputs["Emission"], out.inputs["Surface"])
    main.is_active_output = True

cycles_only_output(bpy.data.objects["Key"], 0.0)
cycles_only_output(bpy.data.objects["Fill"], 0.0)
