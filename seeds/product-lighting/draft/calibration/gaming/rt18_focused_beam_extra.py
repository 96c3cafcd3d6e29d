"""Gaming (must fail): a 15 W extra area light with a 2 degree Spread -- a focused beam that puts hundreds of times the fill's light on the speaker (REQ-EXTRAS: the light an extra puts on the speaker at most the fill's, nothing competes with the rig).

Red team 18.  The reference rig and camera, plus an extra 15 W area light "Kicker", 0.2 m
square, 2.3 m in front-right of the speaker (azimuth 20, elevation 10), aimed at it, its Spread
2 degrees.  Power over pi over the squared distance, 15 / (pi 2.3^2) = 0.90, is under the Fill's
0.99, so light_power passes it -- but Cycles normalises a narrowed spread to keep the light's
power (normalize_spread ~ 3 / half_spread^3): the whole 15 W goes into a ~0.3 m column, and the
speaker gets a blown-out hot spot far brighter than the Key.  light_on (probes_scene) spreads
an area light's power over pi whatever its Spread.
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

kicker = light("Kicker", "AREA", 15.0, (20, 10, 2.3), size=0.2, spread=math.radians(2))
