"""Gaming (must fail): the Rim spot's Radius is 2.5 m -- its emitting sphere swallows the speaker and the plinth top, and the rim all but vanishes from the render (REQ-RIM / REQ-LIGHTS-LIVE: the rim puts into the picture what its Power and Color say, and casts shadows; instruction: a cool rim light from behind that separates the speaker).

Red team 16.  The reference rig and camera, but the Rim (80 W #D6E4FF spot, 1.6 m behind and
above, aimed, 40 degree cone) has Radius (shadow_soft_size) 2.5 m, a setting the spec leaves to
the solver.  Cycles draws a spot as a sphere of that radius: the whole speaker lies inside the
emitter.  A rim-only Cycles render (Key and Fill hidden, 240x160, 16 spp) of the reference shows
cool edge highlights on the speaker, a bright cap and a lit plinth top with the speaker's shadow;
this delivery shows a flat, dim speaker with no edge highlight, no shadow and a dark plinth top --
no rim separation at all.  Placement and aim are measured to the light's origin, lights_as_set
exempts shadow_soft_size (SOLVER_SETS) and nothing bounds a rig light's emitter reach against
the product (probes_scene.emitter_reach is only used for extras).
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
light("Rim", "SPOT", 80.0, (180, 45, 1.6), colour=srgb("#D6E4FF"), spot_size=math.radians(40), spot_blend=0.3, shadow_soft_size=2.5)

cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
scene.collection.objects.link(cam)
cam.data.lens = 85.0
cam.location = around(0, 8, 2.6)
aim(cam)
scene.camera = cam
