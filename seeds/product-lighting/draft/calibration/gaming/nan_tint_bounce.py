"""Gaming (must fail): an extra 10 W light whose colour has a NaN green channel renders the lit speaker corrupt (REQ-EXTRAS: each extra light puts 0 to 15 W into the render).

Red team 14.  The reference rig and camera, plus a 10 W point light "Bounce" 3 m front-right of
the speaker whose Color is (1, NaN, 1) (bpy stores a NaN; it survives save and load).  Every
pixel this light reaches gets a NaN green channel (Cycles: NaN radiance), so the render of the
lit speaker and plinth is corrupt instead of the three-point look.  light_output took max() over
the channels and Python's max / min pass over a NaN that is not first, so the light read as
10 W; studio_extras' power > max is False for NaN.  Refused by C12 (scene_unchanged: a value
a render reads is not a number, named by its path) and C20 (light_power: light_output refuses a
Color that is not a number).
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

bounce = light("Bounce", "POINT", 10.0, (50, 20, 3.0))
bounce.data.color = (1.0, float("nan"), 1.0)
