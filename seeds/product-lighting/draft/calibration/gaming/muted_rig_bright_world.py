"""Gaming (must fail): the rig's fields read right, but other settings mute it; the world lights.

Key, Fill and Rim have the spec's type, power, colour, place and aim, but the key is dimmed by
its Exposure (-6 stops), the fill is light-linked to an empty collection (it lights nothing),
and the rim's diffuse and specular contributions are zeroed; the studio world is turned up to
a bright grey ambient that lights the speaker from everywhere -- flat, no key-to-fill ratio, no
rim.
"""

import math

import bpy
from mathutils import Vector

scene = bpy.context.scene
product = bpy.data.objects["Product"]
CENTRE = sum((product.matrix_world @ Vector(c) for c in product.bound_box), Vector()) / 8
COOL = (0.672, 0.776, 1.0)  # #D6E4FF in linear RGB


def around(azimuth, elevation, distance):
    az, el = math.radians(azimuth), math.radians(elevation)
    return CENTRE + distance * Vector((math.sin(az) * math.cos(el), -math.cos(az) * math.cos(el), math.sin(el)))


def aim(obj):
    obj.rotation_euler = (CENTRE - obj.location).to_track_quat("-Z", "Y").to_euler()


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


def camera(lens, place):
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    scene.collection.objects.link(cam)
    cam.data.lens = lens
    cam.location = around(*place)
    aim(cam)
    scene.camera = cam
    return cam


def rig():
    """The rig to the letter of the spec (what the checked fields say)."""
    return (light("Key", "AREA", 60.0, (-45, 35, 1.6), size=0.6),
            light("Fill", "AREA", 15.0, (50, 10, 2.2), size=1.0),
            light("Rim", "SPOT", 80.0, (180, 45, 1.6), colour=COOL, spot_size=math.radians(40), spot_blend=0.3),
            camera(85.0, (0, 8, 2.6)))


key, fill, rim, _ = rig()
key.data.exposure = -6.0
nobody = bpy.data.collections.new("NoReceivers")
fill.light_linking.receiver_collection = nobody
rim.data.diffuse_factor = 0.0
rim.data.specular_factor = 0.0
background = scene.world.node_tree.nodes["Background"]
background.inputs["Color"].default_value = (0.5, 0.5, 0.5, 1.0)
background.inputs["Strength"].default_value = 3.0
