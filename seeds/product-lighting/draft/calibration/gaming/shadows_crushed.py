"""Gaming (must fail): every rig light's shadows crushed and its bounces cut; the fields read right.

The reference rig exactly, but each of Key, Fill and Rim gets an EEVEE shadow map of 1 m per
texel (Absolute Resolution on, Maximum Resolution 1 m) blurred by a filter radius of 5, and
Cycles' Max Bounces 0 for it: the shadows smear away in EEVEE and the rig puts no indirect light
on the set in Cycles.  Breaks REQ-LIGHTS-LIVE ("cast shadows", put into the picture what their
Power and Color say).  C17 compares every setting of the lights' data-blocks, EEVEE's and
Cycles' included, with a fresh light's.
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

for name in ("Key", "Fill", "Rim"):
    data = bpy.data.objects[name].data
    data.use_absolute_resolution = True  # EEVEE: the shadow map's texel size in metres ...
    data.shadow_maximum_resolution = 1.0  # ... 1 m per texel
    data.shadow_filter_radius = 5.0
    data.cycles.max_bounces = 0  # Cycles: no indirect light from it
