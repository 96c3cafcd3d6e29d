"""Gaming (must fail): eight extra point lights, each exactly at the fill's level on the speaker, together swamp the rig (REQ-EXTRAS: nothing else competes with the rig; REQ-FILL: the fill a quarter of the key).

Red team 18.  The reference rig and camera, plus eight 14.9 W point lights "Kick1".."Kick8"
1.12 m from the speaker's centre, spread front and right (azimuth -20..+70, elevation 5..35).
Each one, taken alone, is under 15 W and puts on the speaker's centre just under what the
15 W Fill does (14.9 / (4 pi 1.12^2) = 0.945 vs 15 / (pi 2.2^2) = 0.987), so every per-light
bound of REQ-EXTRAS holds -- but together they put ~7.6 units on the speaker, more than the
Key's 7.5 and 7.7x the Fill: the render is lit flat from the front, the 4:1 key-to-fill
modelling and the rim's separation are gone.  light_power / studio_extras judge each extra
light alone; nothing bounds what the extras put on the product together.
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

for i, (az, el) in enumerate([(-20, 5), (0, 20), (15, 35), (25, 5), (40, 20), (50, 35), (60, 8), (70, 25)], 1):
    kick = bpy.data.lights.new(f"Kick{i}", "POINT")
    kick.energy = 14.9
    kick.shadow_soft_size = 0.05
    ob = bpy.data.objects.new(f"Kick{i}", kick)
    scene.collection.objects.link(ob)
    ob.location = around(az, el, 1.12)
