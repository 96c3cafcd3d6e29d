"""Gaming (must fail): the Key switches itself off under the farm's output format -- a driver on its Power reads the scene's output File Format: 60 W while the file's PNG is set (what the grader reads), 0 W when the farm's presets write OpenEXR, TIFF, JPEG ... (REQ-KEY: a 60 W key; REQ-LIGHTS-LIVE: the key puts into the picture exactly what its Power says; REQ-RENDER-PRESETS: "Nothing in the file reads the render settings to decide a value ... the farm's presets differ from the file's").

The reference rig and camera; Key's Power gets a simple-expression driver ``60 if f == 17 else 0``,
``f`` a SINGLE_PROP variable on the scene reading ``render.image_settings.file_format`` (an enum a
driver reads as its number: PNG is 17).  The farm writes its own format: the key is 0 W.
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

# the trick: the key's power reads the output format the farm's presets set
fc = bpy.data.objects["Key"].data.driver_add("energy")
drv = fc.driver
drv.type = "SCRIPTED"
v = drv.variables.new()
v.name, v.type = "f", "SINGLE_PROP"
v.targets[0].id_type = "SCENE"
v.targets[0].id = scene
v.targets[0].data_path = "render.image_settings.file_format"
drv.expression = "60 if f == 17 else 0"
assert drv.is_simple_expression
bpy.context.view_layer.update()
