"""Defect (must fail): both softboxes left at the same power, 60 W each.

The fill is as bright as the key, so the shadow side is lit as strongly as the lit side: flat,
shapeless light instead of the 4:1 key-to-fill ratio the brief asks for.
"""

import math

import bpy
from mathutils import Vector

scene = bpy.context.scene
product = bpy.data.objects["Product"]
CENTRE = sum((product.matrix_world @ Vector(c) for c in product.bound_box), Vector()) / 8


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


COOL = (0.672, 0.776, 1.0)  # #D6E4FF in linear RGB


light("Key", "AREA", 60.0, (-45, 35, 1.6), size=0.6)
light("Fill", "AREA", 60.0, (50, 10, 2.2), size=1.0)
light("Rim", "SPOT", 80.0, (180, 45, 1.6), colour=COOL, spot_size=math.radians(40), spot_blend=0.3)
camera(85.0, (0, 8, 2.6))
