"""Gaming (must fail): the camera's Clip End pushed to 1e9 m -- the hero shot renders the speaker and the plinth black, unlit, in the file's own engine (EEVEE): the near/far ratio of 1e10 breaks the engine's depth precision and every light puts nothing on the set (REQ-LIGHTS-LIVE: "Key, Fill and Rim put into the picture exactly what their Power and Color say, and cast shadows"; REQ-FRAMING: the whole speaker in the shot; REQ-RENDER-PRESETS: the engine is the supplied one, EEVEE).

The reference rig and camera; Camera's Clip End is 1e9 m (Clip Start the default 0.1 m).  Every
part of the set still lies between Clip Start and Clip End, so C19/C22 pass.  An EEVEE render
(Blender 5.2, the engine the start scene is set to) shows the plinth and the speaker as dark,
unlit shapes on the dark backdrop (mean pixel 0.115 against the reference's 0.227, brightest
pixel 0.13 against 0.81): no key, no fill, no rim.  Clip End 1e7 does it too; 1e5 does not;
Clip Start 1e-6 with Clip End 1000 does it as well (the far/near ratio, not the far value).
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

cam.data.clip_end = 1e9  # the trick: 'a far clip that never cuts anything'
