"""Reference project for render-setup: a small garden shot left with look-dev render settings.

Units are metres, Z up.  A 4 x 4 m lawn (``Ground``) with a wooden planter (``Planter``,
1.20 x 0.40 x 0.40 m, centred on the origin) holding two round shrubs (``Shrub.L`` and
``Shrub.R``), a ``Camera`` framing them and a ``Sun``.  The shot itself is final; its render
settings are still the look-dev artist's: EEVEE, 1920 x 1080 at 100 %, frames 1-250 at 30 fps,
8-bit PNG to /tmp/, Standard view transform, opaque film, Cycles left at 4096 samples with a
0.01 noise threshold.
"""

import math

import bmesh
import bpy
from mathutils import Matrix, Vector

scene = bpy.context.scene


def material(name, rgba):
    mat = bpy.data.materials.new(name)
    mat.diffuse_color = rgba
    mat.node_tree.nodes.get("Principled BSDF").inputs["Base Color"].default_value = rgba
    return mat


def mesh_object(name, build, mat, location=(0.0, 0.0, 0.0)):
    bm = bmesh.new()
    build(bm)
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(mat)
    obj = bpy.data.objects.new(name, mesh)
    obj.location = location
    scene.collection.objects.link(obj)
    return obj


def box(size, base_z=0.0):
    sx, sy, sz = size
    m = Matrix.Translation((0, 0, base_z + sz / 2)) @ Matrix.Diagonal((sx, sy, sz, 1.0))
    return lambda bm: bmesh.ops.create_cube(bm, size=1.0, matrix=m)


def shrub(bm):
    bmesh.ops.create_icosphere(bm, subdivisions=2, radius=0.28, matrix=Matrix.Translation((0, 0, 0.28)))


def build_set():
    mesh_object("Ground", box((4.0, 4.0, 0.02), base_z=-0.02), material("Lawn", (0.16, 0.36, 0.10, 1.0)))
    mesh_object("Planter", box((1.2, 0.4, 0.4)), material("Cedar", (0.48, 0.30, 0.16, 1.0)))
    leaves = material("Leaves", (0.10, 0.45, 0.12, 1.0))
    mesh_object("Shrub.L", shrub, leaves, (-0.3, 0.0, 0.36))
    mesh_object("Shrub.R", shrub, leaves, (0.3, 0.0, 0.36))
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    scene.collection.objects.link(cam)
    cam.location = (2.6, -3.0, 1.5)
    cam.rotation_euler = (Vector((0.0, 0.0, 0.45)) - cam.location).to_track_quat("-Z", "Y").to_euler()
    cam.data.lens = 40.0
    scene.camera = cam
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    sun.data.energy = 3.0
    sun.rotation_euler = (math.radians(50), math.radians(10), math.radians(40))
    scene.collection.objects.link(sun)


def look_dev_settings():
    r = scene.render
    r.engine = "BLENDER_EEVEE"
    r.resolution_x, r.resolution_y, r.resolution_percentage = 1920, 1080, 100
    r.fps, r.fps_base = 30, 1.0
    scene.frame_start, scene.frame_end = 1, 250
    r.image_settings.file_format = "PNG"
    r.image_settings.color_depth = "8"
    r.image_settings.color_mode = "RGBA"
    r.filepath = "/tmp/"
    r.film_transparent = False
    scene.view_settings.view_transform = "Standard"
    scene.view_settings.look = "None"
    scene.view_settings.exposure = 0.0
    scene.display_settings.display_device = "sRGB"
    scene.cycles.samples = 4096
    scene.cycles.use_adaptive_sampling = True
    scene.cycles.adaptive_threshold = 0.01
    scene.cycles.use_denoising = True


build_set()
look_dev_settings()
