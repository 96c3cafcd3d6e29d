"""Variant (should pass): a different, equally valid rig aimed with constraints.

Differences from the reference solution: every light and the camera is aimed by a Track To
constraint at an Empty placed on the product's centre (their own rotations stay at zero); the
area lights are disks, the key comes from further left and lower, the fill from further right,
the rim from behind-right and steeper with a narrower cone; the camera stands further back and
lower; and a weak, wide bounce light under the camera is added as an extra.
"""

import math

import bpy
from mathutils import Vector

scene = bpy.context.scene
product = bpy.data.objects["Product"]
lo = [min((product.matrix_world @ Vector(c))[i] for c in product.bound_box) for i in range(3)]
hi = [max((product.matrix_world @ Vector(c))[i] for c in product.bound_box) for i in range(3)]
CENTRE = Vector([(a + b) / 2 for a, b in zip(lo, hi)])

target = bpy.data.objects.new("LightTarget", None)
target.empty_display_type = "SPHERE"
target.empty_display_size = 0.05
target.location = CENTRE
scene.collection.objects.link(target)


def place(obj, azimuth, elevation, distance):
    az, el = math.radians(azimuth), math.radians(elevation)
    obj.location = CENTRE + distance * Vector((math.sin(az) * math.cos(el), -math.cos(az) * math.cos(el),
                                               math.sin(el)))
    track = obj.constraints.new("TRACK_TO")
    track.target, track.track_axis, track.up_axis = target, "TRACK_NEGATIVE_Z", "UP_Y"


def light(name, kind, energy, where, colour=(1.0, 1.0, 1.0), **settings):
    data = bpy.data.lights.new(name, kind)
    data.energy, data.color = energy, colour
    for key, value in settings.items():
        setattr(data, key, value)
    obj = bpy.data.objects.new(name, data)
    scene.collection.objects.link(obj)
    place(obj, *where)
    return obj


light("Key", "AREA", 62.0, (-38, 28, 1.9), shape="DISK", size=0.8)
light("Fill", "AREA", 14.6, (62, 4, 2.6), shape="DISK", size=1.2)
light("Rim", "SPOT", 80.0, (200, 52, 1.4), colour=(0.672, 0.776, 1.0), spot_size=math.radians(30),
      spot_blend=0.5)
light("Bounce", "AREA", 3.0, (0, -20, 1.8), size=2.0)

cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
scene.collection.objects.link(cam)
cam.data.lens = 85.0
place(cam, 0, 4, 3.2)
scene.camera = cam
