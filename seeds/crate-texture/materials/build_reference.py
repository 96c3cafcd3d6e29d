"""Reference project for crate-texture: a plank-lined shipping crate without UVs (run in bpy).

Units are metres, Z up.  ``Crate`` is a closed box 0.60 (X) x 0.40 (Y) x 0.40 (Z) standing on
the floor (z = 0), centred on the origin, its faces cut along the plank lines: three cuts
across X (x = -0.15, 0, 0.15) and one round the middle (z = 0.20).  It has no UV map.  Its one
material, ``CrateWood``, is a plain Principled BSDF in a mid wood brown (#8B5A2B, also the
viewport display colour); the texturing task adds the UVs and the image texture.
"""

import math

import bmesh
import bpy
from mathutils import Matrix, Vector

WIDTH, DEPTH, HEIGHT = 0.60, 0.40, 0.40
WOOD = (0.258, 0.102, 0.024, 1.0)  # #8B5A2B in linear RGB


def build_crate():
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation((0, 0, HEIGHT / 2))
                          @ Matrix.Diagonal((WIDTH, DEPTH, HEIGHT, 1)))
    for x in (-0.15, 0.0, 0.15):
        geom = bm.verts[:] + bm.edges[:] + bm.faces[:]
        bmesh.ops.bisect_plane(bm, geom=geom, plane_co=(x, 0, 0), plane_no=(1, 0, 0))
    geom = bm.verts[:] + bm.edges[:] + bm.faces[:]
    bmesh.ops.bisect_plane(bm, geom=geom, plane_co=(0, 0, HEIGHT / 2), plane_no=(0, 0, 1))
    bmesh.ops.recalc_face_normals(bm, faces=bm.faces[:])
    mesh = bpy.data.meshes.new("Crate")
    bm.to_mesh(mesh)
    bm.free()
    wood = bpy.data.materials.new("CrateWood")
    bsdf = next(n for n in wood.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    bsdf.inputs["Base Color"].default_value = WOOD
    bsdf.inputs["Roughness"].default_value = 0.7
    wood.diffuse_color = WOOD
    mesh.materials.append(wood)
    obj = bpy.data.objects.new("Crate", mesh)
    bpy.context.scene.collection.objects.link(obj)


def build_stage():
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    bpy.context.scene.collection.objects.link(cam)
    cam.location = (1.3, -1.5, 1.0)
    cam.rotation_euler = (Vector((0, 0, 0.2)) - cam.location).to_track_quat("-Z", "Y").to_euler()
    bpy.context.scene.camera = cam
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    sun.rotation_euler = (math.radians(40), math.radians(10), math.radians(30))
    bpy.context.scene.collection.objects.link(sun)


build_crate()
build_stage()
