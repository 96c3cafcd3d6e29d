"""Defect (must fail): the rig is built from point lights.

Quick to set up (no aiming needed), placed and powered as specified, but point lights give hard
shadows and no soft key or focused rim: the wrong light types for all three.
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


light("Key", "POINT", 60.0, (-45, 35, 1.6))
light("Fill", "POINT", 15.0, (50, 10, 2.2))
light("Rim", "POINT", 80.0, (180, 45, 1.6), colour=COOL)
camera(85.0, (0, 8, 2.6))
