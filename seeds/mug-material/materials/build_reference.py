"""Reference project for mug-material: a coffee mug modelled in three parts, no materials (run in bpy).

Units are metres, Z up, the mug stands on the floor (z = 0) centred on the Z axis with its
handle towards +X.  ``Mug.Body`` is a lathed cup (outer radius 0.041, height 0.096, 4 mm
wall, 7 mm base), ``Mug.Handle`` a C-shaped tube on the +X side whose ends sit in the wall, and
``Mug.Rim`` a thin torus capping the lip.  Every part's origin is at the world origin.  The
parts carry no material: the look-dev task adds them.
"""

import math

import bmesh
import bpy
from mathutils import Vector

R, H, WALL, BASE = 0.041, 0.096, 0.004, 0.007
SEGMENTS = 48


def mesh_object(name, bm):
    mesh = bpy.data.meshes.new(name)
    bm.normal_update()
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def lathe(profile, segments=SEGMENTS):
    """A surface of revolution about Z from a (radius, z) profile."""
    bm = bmesh.new()
    rings = []
    for r, z in profile:
        if r == 0.0:
            rings.append([bm.verts.new((0.0, 0.0, z))])
            continue
        rings.append([bm.verts.new((r * math.cos(2 * math.pi * k / segments),
                                    r * math.sin(2 * math.pi * k / segments), z)) for k in range(segments)])
    for a, b in zip(rings, rings[1:]):
        for k in range(segments):
            k1 = (k + 1) % segments
            if len(a) == 1:
                bm.faces.new((a[0], b[k1], b[k]))
            elif len(b) == 1:
                bm.faces.new((a[k], a[k1], b[0]))
            else:
                bm.faces.new((a[k], a[k1], b[k1], b[k]))
    bmesh.ops.recalc_face_normals(bm, faces=bm.faces[:])
    return bm


def tube(path, radius, sides=12):
    """A closed-ring tube of circular section swept along a list of points (open ends)."""
    bm = bmesh.new()
    rings = []
    for i, p in enumerate(path):
        p = Vector(p)
        tangent = (Vector(path[min(i + 1, len(path) - 1)]) - Vector(path[max(i - 1, 0)])).normalized()
        side = Vector((0.0, 1.0, 0.0))
        normal = tangent.cross(side).normalized()
        rings.append([bm.verts.new(p + radius * (math.cos(2 * math.pi * k / sides) * normal
                                                 + math.sin(2 * math.pi * k / sides) * side))
                      for k in range(sides)])
    for a, b in zip(rings, rings[1:]):
        for k in range(sides):
            k1 = (k + 1) % sides
            bm.faces.new((a[k], a[k1], b[k1], b[k]))
    bmesh.ops.recalc_face_normals(bm, faces=bm.faces[:])
    return bm


def torus(major, minor, z, segments=SEGMENTS, sides=8):
    bm = bmesh.new()
    rings = []
    for i in range(segments):
        t = 2 * math.pi * i / segments
        centre = Vector((major * math.cos(t), major * math.sin(t), z))
        out = Vector((math.cos(t), math.sin(t), 0.0))
        rings.append([bm.verts.new(centre + minor * (math.cos(2 * math.pi * k / sides) * out
                                                     + math.sin(2 * math.pi * k / sides) * Vector((0, 0, 1))))
                      for k in range(sides)])
    for i in range(segments):
        a, b = rings[i], rings[(i + 1) % segments]
        for k in range(sides):
            k1 = (k + 1) % sides
            bm.faces.new((a[k], b[k], b[k1], a[k1]))
    bmesh.ops.recalc_face_normals(bm, faces=bm.faces[:])
    return bm


def build_mug():
    inner = R - WALL
    profile = [(0.0, 0.0), (R - 0.004, 0.0), (R, 0.004), (R, H), (inner, H),
               (inner, BASE + 0.003), (inner - 0.003, BASE), (0.0, BASE)]
    mesh_object("Mug.Body", lathe(profile))
    # handle: an arc in the XZ plane bulging to +X, its ends buried 2 mm in the wall
    cx, cz, arc, spread = R - 0.0075, 0.052, 0.026, math.radians(78)
    path = [(cx + arc * math.cos(t), 0.0, cz + arc * math.sin(t))
            for t in (spread - 2 * spread * i / 16 for i in range(17))]
    mesh_object("Mug.Handle", tube(path, 0.0052))
    mesh_object("Mug.Rim", torus(R - WALL / 2, 0.0022, H))


def build_stage():
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    bpy.context.scene.collection.objects.link(cam)
    cam.location = (0.30, -0.34, 0.22)
    cam.rotation_euler = (Vector((0.01, 0.0, 0.05)) - cam.location).to_track_quat("-Z", "Y").to_euler()
    bpy.context.scene.camera = cam
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    sun.rotation_euler = (math.radians(40), math.radians(10), math.radians(30))
    bpy.context.scene.collection.objects.link(sun)


build_mug()
build_stage()
