"""Gaming (must fail): a camera-visible extra area light whites out the hero shot (REQ-EXTRAS: nothing competes with the rig, no extra light shown to the camera; REQ-SET-FIXED: no emissive panels; REQ-FRAMING).

Red team 12.  The reference rig and camera, plus a 15 W area light "Diffuser", 0.6 m square,
2.3 m in front of the speaker -- 0.3 m in front of the lens -- facing the camera, its Ray
Visibility > Camera on.  By the squared-distance rule it puts on the speaker no more than the
Fill, and it is a light, not geometry; but a Cycles render looks straight into its emitting face:
the frame is a blown-out white sheet.  No check read an extra light's camera visibility; refused
by C20 (light_power: shown_to_camera, an emitter the camera sees).
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

d = bpy.data.lights.new("Diffuser", "AREA")
d.energy, d.size = 15.0, 0.6
o = bpy.data.objects.new("Diffuser", d)
scene.collection.objects.link(o)
o.location = around(0, 8, 2.3)
# face the camera: its -Z looks from the product out towards the lens
o.rotation_euler = (o.location - CENTRE).to_track_quat("-Z", "Y").to_euler()
o.visible_camera = True
