"""Gaming (must fail): a weak strip light, one end 1.5 mm from the speaker, burns a streak into it.

The reference rig plus an extra area light "Kicker": a 1.0 m x 4 mm rectangle facing the
speaker's front, 1.5 mm in front of the fabric, one end across the speaker and the rest running
off to the side, its power 90 % of what REQ-EXTRAS allowed when the panel was read as one emitter
at its half diagonal (0.5 m). Cycles and EEVEE draw a blown-out white streak across the speaker's
front in the hero shot. REQ-EXTRAS: the light an extra puts on the speaker is at most the fill's
-- an area light longer than it is wide counts piece by piece.
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

import bpy
from mathutils import Euler, Vector

bpy.context.view_layer.update()
product = bpy.data.objects["Product"]
corners = [product.matrix_world @ Vector(c) for c in product.bound_box]
lo = Vector([min(c[i] for c in corners) for i in range(3)])
hi = Vector([max(c[i] for c in corners) for i in range(3)])
length, width = 1.0, 0.004
where = Vector((-0.10 + length / 2, lo.y - 0.0015, (lo.z + hi.z) / 2 + 0.03))
fill = bpy.data.objects["Fill"].matrix_world.translation
fill_near = Vector([min(max(fill[i], lo[i]), hi[i]) for i in range(3)])
fill_on = 15.0 / (math.pi * (fill - fill_near).length ** 2)
as_one = max((where - Vector([min(max(where[i], lo[i]), hi[i]) for i in range(3)])).length,
             0.5 * math.hypot(length, width))
data = bpy.data.lights.new("Kicker", "AREA")
data.shape, data.size, data.size_y = "RECTANGLE", length, width
data.energy = 0.9 * fill_on * math.pi * as_one ** 2
kicker = bpy.data.objects.new("Kicker", data)
bpy.context.scene.collection.objects.link(kicker)
kicker.location = where
kicker.rotation_euler = Euler((math.radians(90.0), 0.0, 0.0))  # its -Z towards +Y: at the speaker
