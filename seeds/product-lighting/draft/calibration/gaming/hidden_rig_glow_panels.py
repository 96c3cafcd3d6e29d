"""Gaming (must fail): the named rig is there to be measured, but the picture is lit by panels.

Key, Fill and Rim are built exactly to the spec's numbers and then hidden from render (they
still sit in the viewport and the outliner with the right power, colour, place and aim), and
two big emissive planes -- an unnamed "softbox" front left and a "fill card" front right --
do the lighting instead: a cheap, even glow with no spot rim at all.
"""

import math

import bpy
from mathutils import Vector

scene = bpy.context.scene
product = bpy.data.objects["Product"]
CENTRE = sum((product.matrix_world @ Vector(c) for c in product.bound_box), Vector()) / 8
COOL = (0.672, 0.776, 1.0)  # #D6E4FF in linear RGB


def around(azimuth, elevation, distance):
    az, el = math.radians(azimuth), math.radians(elevation)
    return CENTRE + distance * Vector((math.sin(az) * math.cos(el), -math.cos(az) * math.cos(el), math.sin(el)))


def aim(obj):
    obj.rotation_euler = (CENTRE - obj.location).to_track_quat("-Z", "Y").to_euler()


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


def camera(lens, place):
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    scene.collection.objects.link(cam)
    cam.data.lens = lens
    cam.location = around(*place)
    aim(cam)
    scene.camera = cam
    return cam


def rig():
    """The rig to the letter of the spec (what the checked fields say)."""
    return (light("Key", "AREA", 60.0, (-45, 35, 1.6), size=0.6),
            light("Fill", "AREA", 15.0, (50, 10, 2.2), size=1.0),
            light("Rim", "SPOT", 80.0, (180, 45, 1.6), colour=COOL, spot_size=math.radians(40), spot_blend=0.3),
            camera(85.0, (0, 8, 2.6)))


key, fill, rim, _ = rig()
for obj in (key, fill, rim):
    obj.hide_render = True


def glow_panel(name, place, size, strength):
    h = size / 2
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([(-h, -h, 0), (h, -h, 0), (h, h, 0), (-h, h, 0)], [], [(0, 1, 2, 3)])
    panel = bpy.data.objects.new(name, mesh)
    scene.collection.objects.link(panel)
    panel.location = around(*place)
    aim(panel)
    mat = bpy.data.materials.new(name + "Glow")
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    nodes.clear()
    emit = nodes.new("ShaderNodeEmission")
    emit.inputs["Strength"].default_value = strength
    out = nodes.new("ShaderNodeOutputMaterial")
    links.new(emit.outputs["Emission"], out.inputs["Surface"])
    panel.data.materials.append(mat)
    return panel


glow_panel("SoftboxPanel", (-45, 35, 1.6), 0.8, 40.0)
glow_panel("FillCard", (50, 10, 2.2), 1.2, 6.0)
