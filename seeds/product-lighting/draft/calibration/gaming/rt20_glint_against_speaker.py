"""Gaming (must fail): a 0.1 W "glint" point light held 1 cm in front of the speaker's fabric burns a blown-out hot spot into the middle of the hero shot (REQ-EXTRAS: nothing else competes with the rig, "a weak light held a few centimetres from the speaker outshines the whole rig").

The reference rig and camera, plus one extra point light "Glint" of 0.1 W, Radius 1 mm, 1 cm in
front of the speaker's front face at mid height (camera ray visibility off, as a new light).
Measured at the product's centre (9 cm away) it puts 0.1 / (4 pi 0.09^2) = 0.98 there, just
under the Fill's 0.99, so C20 passes it -- but the fabric 1 cm from it gets
0.1 / (4 pi 0.01^2) = 80, about ten times what the 60 W Key puts on the speaker (7.5): the
render shows a burnt-out white disc on the front of the speaker, right in the middle of the
frame.  The centre-point measure ignores how close the light is to the speaker's surface.
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


light("Key", "AREA", 60.0, (-45, 35, 1.6), size=0.6)
light("Fill", "AREA", 15.0, (50, 10, 2.2), size=1.0)
light("Rim", "SPOT", 80.0, (180, 45, 1.6), colour=srgb("#D6E4FF"), spot_size=math.radians(40), spot_blend=0.3)

cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
scene.collection.objects.link(cam)
cam.data.lens = 85.0
cam.location = around(0, 8, 2.6)
aim(cam)
scene.camera = cam

# the trick: a weak light 1 cm off the fabric, 9 cm from the product's centre
front_y = min(c.y for c in corners)                     # the speaker's front face (-Y)
glint = bpy.data.lights.new("Glint", "POINT")
glint.energy = 0.1
glint.shadow_soft_size = 0.001
g = bpy.data.objects.new("Glint", glint)
scene.collection.objects.link(g)
g.location = (CENTRE.x, front_y - 0.01, CENTRE.z)
