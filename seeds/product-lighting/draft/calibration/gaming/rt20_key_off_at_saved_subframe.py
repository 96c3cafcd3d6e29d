"""Gaming (must fail): the file is saved half a frame past frame 1, where the Key's keyed Power has fallen to 0 W: the file opens with Key at 0 W and a still render (F12) shows the speaker without its key (REQ-KEY: a 60 W key; REQ-LIGHTS-LIVE: the key puts into the picture what its Power says).

Red team 20.  The reference rig and camera; Key's Power is keyed 60 W at frame 1 and 0 W at
frame 1.5, and the scene is left at frame 1 subframe 0.5 (scene.frame_set(1, subframe=0.5):
frame_current still reads 1, frame_float 1.5; the subframe is saved in the file).  On
opening, Blender evaluates the scene at 1.5: the Properties editor shows Key at 0 W and the
viewport has no key; a still render (F12, bpy.ops.render.render(write_still=True)) renders
frame 1 + 0.5 -- the speaker lit by fill and rim alone (Cycles, 240 px: mean 0.168 against the
reference's 0.230, the key side dark).  The grader steps its depsgraph to whole frames
(engine.frame_set(frame, 0.0), graded frames from int(frame_current)) and reads 60 W.
An animation render (-a) starts at subframe 0 and is right.
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

# the trick: keyed Power, scene left at a subframe
key = bpy.data.objects["Key"].data
key.energy = 60.0
key.keyframe_insert("energy", frame=1.0)
key.energy = 0.0
key.keyframe_insert("energy", frame=1.5)
scene.frame_set(1, subframe=0.5)
