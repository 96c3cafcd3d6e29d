"""Reference project for product-lighting: a product on a plinth, ready to be lit (run in bpy).

Units are metres, Z up; the front of the set is -Y (what Blender's Front view looks at).  The
plinth is a 0.40 x 0.40 m column, 0.90 m high, centred on the origin.  On it stands the product,
a cylindrical speaker 0.16 m across and 0.25 m tall (a fabric body under a dark top cap), so the
product's centre is at (0, 0, 1.025).  The studio world is a dim grey.  There are no lights and
no camera: placing them is the task.
"""

import bmesh
import bpy
from mathutils import Matrix

PLINTH = (0.40, 0.40, 0.90)
BODY_R, BODY_H, CAP_R, CAP_H = 0.08, 0.24, 0.076, 0.01


def material(name, rgba):
    mat = bpy.data.materials.new(name)
    mat.diffuse_color = rgba
    bsdf = mat.node_tree.nodes.get("Principled BSDF")
    bsdf.inputs["Base Color"].default_value = rgba
    bsdf.inputs["Roughness"].default_value = 0.6
    return mat


def mesh_object(name, build, mats, location):
    bm = bmesh.new()
    build(bm)
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    for mat in mats:
        mesh.materials.append(mat)
    obj = bpy.data.objects.new(name, mesh)
    obj.location = location
    bpy.context.scene.collection.objects.link(obj)
    return obj


def plinth(bm):
    sx, sy, sz = PLINTH
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation((0, 0, sz / 2)) @ Matrix.Diagonal((sx, sy, sz, 1)))


def speaker(bm):
    """Body (material 0) standing on z = 0, cap (material 1) on top of it."""
    body = bmesh.ops.create_cone(bm, cap_ends=True, segments=48, radius1=BODY_R, radius2=BODY_R, depth=BODY_H,
                                 matrix=Matrix.Translation((0, 0, BODY_H / 2)))
    cap = bmesh.ops.create_cone(bm, cap_ends=True, segments=48, radius1=CAP_R, radius2=CAP_R, depth=CAP_H,
                                matrix=Matrix.Translation((0, 0, BODY_H + CAP_H / 2)))
    cap_verts = set(cap["verts"])
    for face in bm.faces:
        face.material_index = 1 if all(v in cap_verts for v in face.verts) else 0
    for face in bm.faces:
        face.smooth = len(face.verts) == 4
    del body


def world():
    studio = bpy.data.worlds.new("Studio")
    studio.color = (0.02, 0.02, 0.02)
    background = studio.node_tree.nodes.get("Background")
    background.inputs["Color"].default_value = (0.02, 0.02, 0.02, 1.0)
    background.inputs["Strength"].default_value = 1.0
    bpy.context.scene.world = studio


def main():
    mesh_object("Plinth", plinth, [material("PlinthWhite", (0.60, 0.60, 0.58, 1.0))], (0, 0, 0))
    mesh_object("Product", speaker, [material("SpeakerFabric", (0.06, 0.24, 0.30, 1.0)),
                                     material("SpeakerCap", (0.04, 0.04, 0.045, 1.0))], (0, 0, PLINTH[2]))
    world()
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 1
    scene.render.resolution_x, scene.render.resolution_y = 1600, 1600


main()
