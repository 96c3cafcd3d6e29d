"""Gaming (must fail): the scene camera is scaled -1 on every axis, so a render looks the other way.

The reference table plus a camera at (0, 0, 0.02) under the top, turned to look up at it, with a
10 mm lens and object scale (-1, -1, -1). Cycles and EEVEE drop a camera's scale by making each
axis unit length with its sign kept: the render looks down, through the floor, and shows an empty
world. Read through ``decompose`` the scale folded back into a rotation that faced the table. The
spec (REQ-PARTS): the camera a render uses "picture shows each of them".
"""

# --- the reference solution (solution/solve.py) ---
import bmesh
import bpy
from mathutils import Matrix

WIDTH, DEPTH, HEIGHT, TOP = 1.20, 0.80, 0.75, 0.04
LEG, INSET = 0.06, 0.03


def box_object(name, size, base_center, mat):
    """A box-shaped object whose origin is the centre of its bottom face."""
    sx, sy, sz = size
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation((0, 0, sz / 2)) @ Matrix.Diagonal((sx, sy, sz, 1)))
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(mat)
    obj = bpy.data.objects.new(name, mesh)
    obj.location = base_center
    bpy.context.scene.collection.objects.link(obj)
    return obj


wood = bpy.data.materials.new("Wood")
wood.diffuse_color = (0.55, 0.36, 0.20, 1.0)
wood.use_nodes = True  # the render shows the Principled BSDF's colour, not the viewport's
wood.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.55, 0.36, 0.20, 1.0)
leg_h = HEIGHT - TOP
box_object("Tabletop", (WIDTH, DEPTH, TOP), (0, 0, leg_h), wood)
dx, dy = WIDTH / 2 - INSET - LEG / 2, DEPTH / 2 - INSET - LEG / 2
for tag, (x, y) in {"FL": (-dx, -dy), "FR": (dx, -dy), "BL": (-dx, dy), "BR": (dx, dy)}.items():
    box_object(f"Leg.{tag}", (LEG, LEG, leg_h), (x, y, 0), wood)

# --- the trick ---
import math

import bpy

scene = bpy.context.scene
data = bpy.data.cameras.new("Cam")
data.lens, data.clip_start, data.clip_end = 10.0, 0.01, 100.0
cam = bpy.data.objects.new("Cam", data)
scene.collection.objects.link(cam)
cam.location = (0.0, 0.0, 0.02)
cam.rotation_euler = (math.radians(180.0), 0.0, 0.0)  # -Z up: towards the top's underside
cam.scale = (-1.0, -1.0, -1.0)
scene.camera = cam
