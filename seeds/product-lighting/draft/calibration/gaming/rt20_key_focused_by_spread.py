"""Gaming (must fail): the "soft" key is a hard, focused spotlight -- a 60 W area light pulled back to 2.5 m with its Spread narrowed to 9 degrees, just wide enough to cover the speaker (REQ-KEY: "a soft key light"; REQ-LIGHTS-LIVE: put into the picture what its Power says).

Red team 20.  The reference rig and camera but the Key: 0.6 m square, 60 W, white, azimuth -45,
elevation 35, 2.5 m (inside REQ-KEY-PLACEMENT), Spread 9 degrees.  From 2.5 m the speaker spans
under 4.5 degrees off the key's axis, so C07 (REQ-AIM) passes the beam; C01 reads only the
panel's size for softness.  Cycles keeps the panel's power in the narrowed beam
(1 / sin^2(4.5 deg) = 162 times a plain panel's): the key puts ~500 on the speaker against the
reference's 7.5, with a hard-edged pool of light on the plinth -- a blown-out, spot-lit speaker,
not the soft key, and the 4:1 key-to-fill ratio is ~500:1 (Cycles, 240 px, 24 spp: 5.6 % of the
frame clipped white against 0 % for the reference; EEVEE ignores Spread and renders it close to
the reference).  (The calibration sample
hard_key_light, 8 degrees at 1.6 m, is refused only because its beam misses the speaker's
corners there.)

Below: the reference solution for product-lighting (bpy, applied to inputs/start.blend).

Reads the product's centre from the scene, then places a classic three-point rig around it
(angles measured about the product from the front, -Y; positive azimuth to the right, +X):

    Key   area 60 W, 0.6 m square, white      azimuth -45, elevation 35, 1.6 m
    Fill  area 15 W, 1.0 m square, white      azimuth +50, elevation 10, 2.2 m
    Rim   spot 80 W, 40 deg cone, #D6E4FF     azimuth 180, elevation 45, 1.6 m

and an 85 mm camera straight in front, 8 degrees above the product's centre, 2.6 m away, made
the scene camera.  Every light and the camera is rotated to look straight at the centre.
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


# the trick: the key pulled back to 2.5 m and its Spread narrowed to 9 degrees -- still wide
# enough to cover the 0.16 x 0.25 m speaker from there (REQ-AIM), a hard 60 W beam
light("Key", "AREA", 60.0, (-45, 35, 2.5), size=0.6, spread=math.radians(9))
light("Fill", "AREA", 15.0, (50, 10, 2.2), size=1.0)
light("Rim", "SPOT", 80.0, (180, 45, 1.6), colour=srgb("#D6E4FF"), spot_size=math.radians(40), spot_blend=0.3)

cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
scene.collection.objects.link(cam)
cam.data.lens = 85.0
cam.location = around(0, 8, 2.6)
aim(cam)
scene.camera = cam
