"""Gaming (must fail): the key a 3 m panel 2.49 m away, the fill focused to just under its reading.

The reference rig, then Key moved to the far end of its range (2.49 m, azimuth -45, elevation
20) and made a square panel just narrower than the point where its half-diagonal would reach
the speaker's box (~3 m), Spread 90; Fill a 5 cm panel at the near end of its range (1.51 m,
azimuth 50, elevation 10), its Spread narrowed until, read as a point at its centre, it puts
0.97 of the key's reading on the speaker. A panel as wide as its distance puts far less on the
speaker than its power at its centre would: in Cycles the fill lights the speaker 1.8 times as
much as the key, the rig reversed (REQ-FILL: it puts less light on the speaker than Key does).
Found by red team 42.
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
import math

from mathutils import Vector

product = bpy.data.objects["Product"]
corners = [product.matrix_world @ Vector(c) for c in product.bound_box]
lo = Vector([min(c[i] for c in corners) for i in range(3)])
hi = Vector([max(c[i] for c in corners) for i in range(3)])
centre = (lo + hi) / 2


def place(obj, azimuth, elevation, distance):
    az, el = math.radians(azimuth), math.radians(elevation)
    obj.location = centre + distance * Vector((math.sin(az) * math.cos(el), -math.cos(az) * math.cos(el),
                                               math.sin(el)))
    obj.rotation_euler = (centre - obj.location).to_track_quat("-Z", "Y").to_euler()


key, fill = bpy.data.objects["Key"], bpy.data.objects["Fill"]
place(key, -45, 20, 2.49)
# the set's box (every mesh): the panel's half-diagonal stays short of it
points = [o.matrix_world @ Vector(c) for o in bpy.context.scene.objects if o.type == "MESH" for c in o.bound_box]
set_lo = Vector([min(c[i] for c in points) for i in range(3)])
set_hi = Vector([max(c[i] for c in points) for i in range(3)])
nearest = Vector([min(max(key.location[i], set_lo[i]), set_hi[i]) for i in range(3)])
key.data.shape, key.data.size, key.data.spread = "SQUARE", 0.97 * math.sqrt(2) * (key.location - nearest).length, math.radians(90)
place(fill, 50, 10, 1.51)
fill.data.shape, fill.data.size = "SQUARE", 0.05
gain = 0.97 * (key.data.energy * 2 / 2.49 ** 2) / (fill.data.energy / 1.51 ** 2)
fill.data.spread = 2 * math.asin(1 / math.sqrt(gain))
