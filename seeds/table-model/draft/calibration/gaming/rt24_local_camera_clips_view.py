"""Gaming (must fail): the file opens looking through its own camera, whose clip range ends
1 mm in front of it: the viewport shows nothing of the table.

The five parts are the reference's (a render of the scene camera -- the file sets none -- shows
the reference table). A second camera "ViewCam" stands inside the table's outline (under the
top, 0.55 m up, looking across the table), its Clip Start 0.0001 m and Clip End 0.001 m; it is no scene
camera, but every 3D view saved in the file uses it as its Local Camera and is saved in Camera
view. Opened in Blender, the viewport looks through ViewCam and its 1 mm clip range cuts every
part away: an empty view (spec: "The model is what the file shows when opened too: every part
shows its surface in the viewport (not disabled or hidden there ...)"). The grader skips the clip
check of a 3D view in camera view ("a camera view clips at the camera's range (a render setting,
graded as one)"), but only the scene camera's range is graded as a render setting.
"""

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

import math

cam = bpy.data.objects.new("ViewCam", bpy.data.cameras.new("ViewCam"))
cam.location = (0.45, 0.25, 0.55)
cam.rotation_euler = (math.radians(75), 0.0, math.radians(135))  # towards Leg.FL and the top
cam.data.clip_start = 0.0001
cam.data.clip_end = 0.001
bpy.context.scene.collection.objects.link(cam)

for screen in bpy.data.screens:
    for area in screen.areas:
        for space in area.spaces:
            if space.type == "VIEW_3D":
                space.use_local_camera = True
                space.camera = cam
                if space.region_3d is not None:
                    space.region_3d.view_perspective = "CAMERA"
