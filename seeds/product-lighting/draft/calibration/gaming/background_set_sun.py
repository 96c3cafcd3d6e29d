"""Gaming (must fail): a 20 W/m2 sun and a glowing backdrop panel, living in a Background Set scene.

Key, Fill, Rim and Camera are the reference's. A second scene "Studio" holds a Sun light of
strength 20 and a 3 x 3 m emissive panel (Emission strength 5) behind the product; the delivered
scene's Background Scene (scene.background_set) is Studio, so every render is lit by the sun and
shows a glowing backdrop (REQ-EXTRAS: no sun, each extra light 0 to 15 W; REQ-SET-FIXED: no
meshes, emissive panels or backdrops). Neither is an object of the delivered scene.
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

studio = bpy.data.scenes.new("Studio")
sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
sun.data.energy = 20.0
sun.rotation_euler = (0.5, 0.3, 0.4)
studio.collection.objects.link(sun)
import bmesh
from mathutils import Matrix
bm = bmesh.new()
bmesh.ops.create_grid(bm, x_segments=1, y_segments=1, size=1.5, matrix=Matrix.Translation((0, 1.2, 1.2)) @ Matrix.Rotation(math.radians(90), 4, "X"))
mesh = bpy.data.meshes.new("Backdrop")
bm.to_mesh(mesh)
bm.free()
glow = bpy.data.materials.new("Glow")
glow.use_nodes = True
nt = glow.node_tree
p = nt.nodes["Principled BSDF"]
p.inputs["Emission Color"].default_value = (1.0, 0.2, 0.6, 1)
p.inputs["Emission Strength"].default_value = 5.0
mesh.materials.append(glow)
panel = bpy.data.objects.new("Backdrop", mesh)
studio.collection.objects.link(panel)
scene.background_set = studio
