"""Reference project for fence-array: a picket fence panel built with live modifiers (run in bpy).

Units are metres, Z up, the fence runs along X centred on the origin, its front (the picket
side) facing -Y, standing on the floor (z = 0).

    Fence.Posts    one 0.10 x 0.10 x 1.10 m post at x = -0.85 (centre), mirrored across X = 0
                   by a live Mirror modifier: posts span x -0.90..-0.80 and 0.80..0.90,
                   y -0.05..0.05, z 0..1.10
    Fence.Rails    two 1.60 x 0.03 x 0.07 m rails between the posts (x -0.80..0.80), flush with
                   the posts' front (y -0.05..-0.02), centred at z 0.25 and z 0.80
    Fence.Pickets  one 0.08 x 0.02 x 0.95 m picket at x = -0.72 (centre), y -0.07..-0.05,
                   z 0.05..1.00, repeated by a live Array modifier: 10 pickets at a 0.16 m pitch
                   (constant offset), spanning x -0.76..0.76

The panel measures 1.80 (X) x 0.12 (Y) x 1.10 (Z).  Every part carries the material
``FenceWood``.
"""

import math

import bmesh
import bpy
from mathutils import Matrix, Vector

POST, POST_H, POST_X = 0.10, 1.10, 0.85
RAIL_LEN, RAIL_D, RAIL_H, RAIL_Y, RAIL_Z = 1.60, 0.03, 0.07, -0.035, (0.25, 0.80)
PICKET_W, PICKET_D, PICKET_Z0, PICKET_Z1, PICKET_Y = 0.08, 0.02, 0.05, 1.00, -0.06
COUNT, PITCH = 10, 0.16


def box(bm, size, centre):
    m = Matrix.Translation(centre) @ Matrix.Diagonal((*size, 1.0))
    bmesh.ops.create_cube(bm, size=1.0, matrix=m)


def mesh_object(name, boxes, mat):
    bm = bmesh.new()
    for size, centre in boxes:
        box(bm, size, centre)
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(mat)
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def build_fence():
    wood = bpy.data.materials.new("FenceWood")
    wood.diffuse_color = (0.62, 0.50, 0.36, 1.0)
    posts = mesh_object("Fence.Posts", [((POST, POST, POST_H), (-POST_X, 0.0, POST_H / 2))], wood)
    mirror = posts.modifiers.new("Mirror", "MIRROR")
    mirror.use_axis = (True, False, False)
    mesh_object("Fence.Rails", [((RAIL_LEN, RAIL_D, RAIL_H), (0.0, RAIL_Y, z)) for z in RAIL_Z], wood)
    first_x = -(COUNT - 1) * PITCH / 2
    picket = mesh_object("Fence.Pickets", [((PICKET_W, PICKET_D, PICKET_Z1 - PICKET_Z0),
                                             (first_x, PICKET_Y, (PICKET_Z0 + PICKET_Z1) / 2))], wood)
    array = picket.modifiers.new("Array", "ARRAY")
    array.count = COUNT
    array.use_relative_offset = False
    array.use_constant_offset = True
    array.constant_offset_displace = (PITCH, 0.0, 0.0)


def build_stage():
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    bpy.context.scene.collection.objects.link(cam)
    cam.location = (2.2, -3.0, 1.6)
    cam.rotation_euler = (Vector((0, 0, 0.55)) - cam.location).to_track_quat("-Z", "Y").to_euler()
    bpy.context.scene.camera = cam
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    sun.rotation_euler = (math.radians(40), math.radians(10), math.radians(30))
    bpy.context.scene.collection.objects.link(sun)


build_fence()
build_stage()
