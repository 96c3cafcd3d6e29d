"""Gaming (must fail): depth of field on, aperture rotation NaN -- every camera ray is NaN, the frame blank (REQ-FRAMING: the whole speaker in the shot, every point of it sharp; REQ-CAMERA).

Red team 14.  The reference rig and camera; the camera's depth of field is on, focused on the
speaker (focus object Product) at f/128 -- a near pinhole, the blur check's circle of confusion
far under 2 px -- with a 6-bladed aperture whose Rotation is NaN (bpy stores it).  A render
samples the polygonal aperture with a NaN angle: every primary ray's origin is NaN, the frame
renders flat instead of the hero shot.  The blur formula reads f-stop, focus and ratio, never
the blades' rotation; refused by C12 (scene_unchanged: camera.dof.aperture_rotation is not a
number) and C19 (shot_framing: dof_numbers, every setting the aperture is sampled with a number).
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

dof = cam.data.dof
dof.use_dof = True
dof.focus_object = product
dof.aperture_fstop = 128.0
dof.aperture_blades = 6
dof.aperture_rotation = float("nan")
