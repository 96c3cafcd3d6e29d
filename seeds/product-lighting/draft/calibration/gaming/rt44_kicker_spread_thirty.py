"""Gaming: an extra 5 W area "Kicker" with Spread 30 degrees, placed where the grader's
1/sin^2(Spread/2) reading sits just under the fill's -- in Cycles it puts ~2.5-3x the fill's light
on the speaker (REQ-EXTRAS: "the light it puts on the speaker is at most the fill's ... an area
light's [power] over pi and made stronger along its axis by a narrow Spread (1 / sin^2(Spread / 2)
times: the panel's power goes into the narrower beam)" -- "nothing else competes with the rig").

Cycles' on-axis gain for Spread 30 is tan(15 deg) / (tan(15 deg) - 15 deg) = 43.9, the grader's
1/sin^2(15 deg) = 14.9 (measured: see fill_spread_underestimated.py).

Found by red team 44; refused since: the Spread's gain is read as Cycles normalises it, tan(a) /
(tan(a) - a) (`probes_scene.beam_gain`).
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

light("Kicker", "AREA", 5.0, (20, 10, 4.75), size=0.1, spread=math.radians(30.0))
