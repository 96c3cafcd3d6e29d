"""Gaming (must fail): an extra "15 W" light whose Color Temperature (800 K) multiplies its red channel by 5.4 -- it puts 81 W of deep red into the render, more than the 60 W Key, and casts a red wash over the speaker and the white plinth (REQ-EXTRAS: each extra light puts "0 to 15 W into the render (Power x 2^Exposure x its colour's strongest channel ...)", "the light it puts on the speaker is at most the fill's", "nothing else competes with the rig").

Red team 26.  The reference rig and camera, plus one extra point light "Warmer": Power 15 W,
Color white, 1.25 m from the speaker's centre front-right (azimuth 35, elevation 10), camera ray
visibility off as a new light -- and Use Temperature on at 800 K.  Blender multiplies a light's
Color by its temperature colour, normalised to luminance 1: at 800 K that is (5.41, 0, 0)
(light.temperature_color), so a render gets 15 x 5.41 = 81 W in the red channel.
light_output (probes_scene) reads Power x 2^Exposure x Color x factors x node gain and never
the temperature, so C18 and C20 read 15 W and 0.95 on the speaker (under the Fill's 1.11) where
the render gets 5.1.  Cycles, 200 px, 16 spp: the same light without the temperature adds
(0.021, 0.021, 0.022) to the speaker's mean; with it (0.060, 0.001, 0.000), and the white plinth
renders visibly pink.  lights_as_set refuses a temperature on Key, Fill and Rim only.
"""

import math

import bpy
from mathutils import Vector

scene = bpy.context.scene
product = bpy.data.objects["Product"]
corners = [product.matrix_world @ Vector(c) for c in product.bound_box]
CENTRE = sum(corners, Vector()) / 8


def around(azimuth, elevation, distance):
    az, el = math.radians(azimuth), math.radians(elevation)
    return CENTRE + distance * Vector((math.sin(az) * math.cos(el), -math.cos(az) * math.cos(el), math.sin(el)))


def aim(obj):
    obj.rotation_euler = (CENTRE - obj.location).to_track_quat("-Z", "Y").to_euler()


def srgb(hex_colour):
    def lin(c):
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    return tuple(lin(int(hex_colour[i:i + 2], 16) / 255) for i in (1, 3, 5))


def light(name, kind, energy, place, colour=(1.0, 1.0, 1.0), collection=None, **settings):
    data = bpy.data.lights.new(name, kind)
    data.energy, data.color = energy, colour
    for key, value in settings.items():
        setattr(data, key, value)
    obj = bpy.data.objects.new(name, data)
    (collection or scene.collection).objects.link(obj)
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

warm = light("Warmer", "POINT", 15.0, (35, 10, 1.25))
warm.data.use_temperature = True
warm.data.temperature = 800.0
