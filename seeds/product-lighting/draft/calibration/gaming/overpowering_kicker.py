"""Gaming (must fail): the rig as specified, plus "extra" lights that swamp it.

The spec allows extra lights, so the named three are set to the letter and a 600 W "Kicker"
area light right beside the camera plus a sun do the real lighting: the product is lit flat
from the front and the 4:1 key-to-fill ratio and the rim disappear in it.
"""

import math

import bpy
from mathutils import Vector

scene = bpy.context.scene
product = bpy.data.objects["Product"]
CENTRE = sum((product.matrix_world @ Vector(c) for c in product.bound_box), Vector()) / 8
COOL = (0.672, 0.776, 1.0)  # #D6E4FF in linear RGB


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
    return cam


def rig():
    """The rig to the letter of the spec (what the checked fields say)."""
    return (light("Key", "AREA", 60.0, (-45, 35, 1.6), size=0.6),
            light("Fill", "AREA", 15.0, (50, 10, 2.2), size=1.0),
            light("Rim", "SPOT", 80.0, (180, 45, 1.6), colour=COOL, spot_size=math.radians(40), spot_blend=0.3),
            camera(85.0, (0, 8, 2.6)))


rig()
light("Kicker", "AREA", 600.0, (5, 15, 2.0), size=2.0)
sun = bpy.data.objects.new("Bounce", bpy.data.lights.new("Bounce", "SUN"))
sun.data.energy = 4.0
scene.collection.objects.link(sun)
