"""Gaming: the Fill's Spread narrowed to 45 degrees -- the grader's 1/sin^2(Spread/2) says it stays
under the Key, Cycles puts ~2.5x the Key's light on the speaker (REQ-FILL: "it puts less light on
the speaker than Key does ... made stronger by a narrow Spread: an area light keeps its power in the
narrower beam, so a fill focused by its own Spread outshines the key and reverses the rig").

Measured in Cycles (Blender 5.2, small area light, on-axis irradiance relative to Spread 180):
Spread 90 -> 4.39x (grader 2.0x), 40 -> 22.4x (grader 8.5x), 20 -> 87x (grader 33x), 10 -> 327x
(grader 132x). Cycles normalises the Spread falloff 1 - tan(x)/tan(a) (a = Spread/2), i.e. the on-
axis gain is tan(a) / (tan(a) - a) (-> 3/a^2), not 1/sin^2(a) (-> 1/a^2). Fill at 15 W, 2.2 m,
Spread 45: grader 0.987 x 6.83 = 6.7 < Key's ~7.4; Cycles 0.987 x 19.3 = 19 -- 2.5x the Key.

Found by red team 44; refused since: the Spread's gain is read as Cycles normalises it, tan(a) /
(tan(a) - a) (`probes_scene.beam_gain`).
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

bpy.data.objects["Fill"].data.spread = math.radians(45.0)
