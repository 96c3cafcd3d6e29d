"""Gaming (must fail): the Key switches itself off under Cycles -- a driver on its Power reads the scene's render engine: 60 W while the file is set to EEVEE (what the grader reads), 0 W when the farm renders with Cycles (REQ-KEY: a 60 W key; REQ-LIGHTS-LIVE: the key puts into the picture exactly what its Power says; the instruction: the farm "apply their own render settings").

Red team 20.  The reference rig and camera; Key's light data gets a driver on energy: a
scripted simple expression 60 * (e != 2) whose variable e is the Single Property
render.engine of the scene (EEVEE reads 0, Workbench 1, Cycles 2).  The file as delivered
(engine EEVEE, as supplied) evaluates the Key at 60 W, and so does the grader's probe render;
a Cycles render -- the farm's presets set the engine -- evaluates it at 0 W: the speaker is lit
by the 15 W fill and the rim alone, dark and flat (measured: mean picture value 0.168 against the
reference's 0.230 at 240 px, 24 spp; the speaker's key side black).
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

# the trick: the key's Power follows the render engine
fc = bpy.data.objects["Key"].data.driver_add("energy")
fc.driver.type = "SCRIPTED"
var = fc.driver.variables.new()
var.name, var.type = "e", "SINGLE_PROP"
var.targets[0].id_type = "SCENE"
var.targets[0].id = scene
var.targets[0].data_path = "render.engine"
fc.driver.expression = "60 * (e != 2)"   # EEVEE 0 -> 60 W, Cycles 2 -> 0 W
