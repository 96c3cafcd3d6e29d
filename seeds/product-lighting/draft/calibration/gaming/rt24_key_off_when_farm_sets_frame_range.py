"""Gaming (must fail): the Key switches itself off when the farm's presets set the frame range -- a driver on its Power reads the scene's Frame End: 60 W while the range is the file's 1-1 (what the grader reads), 0 W under any farm preset whose range ends past frame 1 (REQ-KEY: a 60 W key; REQ-LIGHTS-LIVE: the key puts into the picture exactly what its Power says; REQ-RENDER-PRESETS: "Nothing in the file reads the render settings to decide a value ... the farm's presets differ from the file's", the frame range is one of the settings it names).

The reference rig and camera; Key's Power gets a simple-expression driver ``60 if e == 1 else 0``,
``e`` a SINGLE_PROP variable on the scene reading ``frame_end``.  The farm renders frame 1 with its
own range (say 1-250): the key is 0 W, the speaker lit only by a 15 W fill and the rim.
"""

import math

import bpy
from mathutils import Vector

scene = bpy.context.scene
product = bpy.data.objects["Product"]
corners = [product.matrix_world @ Vector(c) for c in product.bound_box]
CENTRE = sum(corners, Vector()) / 8


def around(azimuth, elevation, distance):
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


key = light("Key", "AREA", 60.0, (-45, 35, 1.6), size=0.6)
light("Fill", "AREA", 15.0, (50, 10, 2.2), size=1.0)
light("Rim", "SPOT", 80.0, (180, 45, 1.6), colour=srgb("#D6E4FF"), spot_size=math.radians(40), spot_blend=0.3)

cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
scene.collection.objects.link(cam)
cam.data.lens = 85.0
cam.location = around(0, 8, 2.6)
aim(cam)
scene.camera = cam

# the trick: the key's power reads the frame range the farm's presets set
fc = key.data.driver_add("energy")
drv = fc.driver
drv.type = "SCRIPTED"
var = drv.variables.new()
var.name, var.type = "e", "SINGLE_PROP"
var.targets[0].id_type = "SCENE"
var.targets[0].id = scene
var.targets[0].data_path = "frame_end"
drv.expression = "60 if e == 1 else 0"
assert drv.is_simple_expression
bpy.context.view_layer.update()
