"""Gaming (must fail): the Key's world matrix is sheared through its parent "aiming helper" empty -- its X and Y axes 3 degrees apart, each 1 long -- and Cycles draws the 0.6 m soft panel as a 0.6 m x ~23 m rhombus strip that washes the speaker out (REQ-KEY: a soft key from the front left, its emitting surface as rendered Size x scale; REQ-LIGHTS-LIVE: the key puts into the picture exactly what its Power and Color say).

The reference rig and camera, but Key is parented to an empty whose rotation and non-uniform
scale, with the Key's own rotation, make Key.matrix_world = [e1, cos3 e1 + sin3 e2, e3]: every
column 1 long (so Size x scale reads 0.6 m, the emitter reach 0.42 m), -Z still aimed at the
product, the origin where the reference puts it.  Cycles takes the panel's axes as they are:
the panel it intersects is the rhombus two 0.6 m slabs 3 degrees apart cut out (0.6 m across,
0.6 / sin 1.5 deg = 23 m long), while its power is normalised for a 0.6 x 0.6 square.  Key-only
Cycles render (200 px, 16 spp): the speaker comes out pale, almost white, the plinth blown and
speckled with fireflies, mean 0.279 against the reference key's 0.221 -- no soft front-left key
modelling; seen from the product, the key is a strip running out of the frame, not a square.
"""

import math

import bpy
from mathutils import Matrix, Vector

scene = bpy.context.scene
product = bpy.data.objects["Product"]
corners = [product.matrix_world @ Vector(c) for c in product.bound_box]
CENTRE = sum(corners, Vector()) / 8


def around(azimuth, elevation, distance):
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


key = light("Key", "AREA", 60.0, (-45, 35, 1.6), size=0.6)
light("Fill", "AREA", 15.0, (50, 10, 2.2), size=1.0)
light("Rim", "SPOT", 80.0, (180, 45, 1.6), colour=srgb("#D6E4FF"), spot_size=math.radians(40), spot_blend=0.3)

# shear the key: world 3x3 = [e1, cos(a) e1 + sin(a) e2, e3], every column 1 long
R0 = key.rotation_euler.to_matrix()
e1, e2, e3 = R0.col[0], R0.col[1], R0.col[2]
a = math.radians(3.0)
M = Matrix.Identity(3)
M.col[0], M.col[1], M.col[2] = e1, math.cos(a) * e1 + math.sin(a) * e2, e3
# M = U S V^T (polar / SVD via numpy): parent = U S, child rotation = V^T
import numpy as np
U, S, Vt = np.linalg.svd(np.array(M))
if np.linalg.det(U) < 0:
    U[:, 2] *= -1; Vt[2, :] *= -1
helper = bpy.data.objects.new("KeyAim", None)
scene.collection.objects.link(helper)
P3 = Matrix([list(r) for r in (U @ np.diag(S))])
helper.matrix_world = Matrix.Translation(key.location) @ P3.to_4x4()
helper.location = key.location
# decomposition on assignment loses nothing here: U is a rotation, S a diagonal scale
helper.rotation_mode = "XYZ"
helper.rotation_euler = Matrix([list(r) for r in U]).to_euler()
helper.scale = tuple(float(s) for s in S)
key.parent = helper
key.matrix_parent_inverse = Matrix.Identity(4)
key.location = (0, 0, 0)
key.rotation_euler = Matrix([list(r) for r in Vt]).to_euler()

cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
scene.collection.objects.link(cam)
cam.data.lens = 85.0
cam.location = around(0, 8, 2.6)
aim(cam)
scene.camera = cam
bpy.context.view_layer.update()
m = key.matrix_world.to_3x3()
print("KEY cols", [round(m.col[i].length, 4) for i in range(3)],
      "angle", math.degrees(m.col[0].angle(m.col[1])), "loc", key.matrix_world.translation)
