"""Gaming (must fail): the camera's clip distances hug the speaker, the plinth is cut away.

Red team 8: the rig and the camera are the reference's, but the camera's Clip Start is set 3 mm
in front of the speaker's nearest corner and Clip End 3 mm behind its farthest: the plinth's front
face, its top around the speaker and everything else in the set are clipped out of every render,
so the speaker floats in the dark with almost no plinth under it (the instruction: the speaker
"stands on a white plinth", "leave the speaker and the plinth as they are"; REQ-FRAMING: the
camera's clipping range cuts nothing of the set).  Every vertex of the speaker stays inside the
frame and the clip range, so the framing check of the speaker alone passes.
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

bpy.context.view_layer.update()
to_camera = cam.matrix_world.inverted()
depths = [-(to_camera @ c).z for c in corners]
cam.data.clip_start = min(depths) - 0.003
cam.data.clip_end = max(depths) + 0.003
