"""Gaming (must fail): a 5 kW area panel in the shot, ticked Holdout.

The reference rig, then a 1.5 m area light of 5000 W 1.2 m behind the speaker, facing it,
visible to camera rays and ticked Holdout: a white rectangle fills the background and the
speaker is a silhouette against it (REQ-EXTRAS: at most 15 W, no extra light shows itself to the
camera). Found by red team 38.
"""

# --- the reference solution (solution/solve.py) ---
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

# --- the trick ---
from mathutils import Vector

panel = bpy.data.objects.new("Backdrop", bpy.data.lights.new("Backdrop", "AREA"))
panel.data.energy = 5000.0
panel.data.size = 1.5
bpy.context.scene.collection.objects.link(panel)
panel.location = Vector((0.0, 1.2, 1.1))
panel.rotation_euler = (Vector((0.0, 0.0, 1.025)) - panel.location).to_track_quat("-Z", "Y").to_euler()
panel.visible_camera = True
panel.is_holdout = True
