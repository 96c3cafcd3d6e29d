"""Gaming (must fail): Eevee's Light Threshold at 1000 cuts the file's only lamp off before it reaches the fence: every render is black.

The reference fence, engine Eevee, a camera "Fence.Cam" 4 m in front of it and a 1 kW point light
"Fence.Lamp" 3 m in front of the panel (about 9 W/m² on it, within the spec's 30), in a black
world. Render > Light Threshold (scene.eevee.light_threshold) is 1000 instead of 0.01: Eevee ends
each light's influence where its light falls below the threshold -- for this lamp a few
centimetres from its centre -- so none of it reaches the fence, and every Eevee render of the file
is black (REQ-PARTS: "the render settings leave the picture alone"; "no light clamp ... lower than
the light the parts get ... it would cap that light"). Cycles renders it lit.
"""

# --- the reference solution (solution/solve.py) ---
import bmesh
import bpy
from mathutils import Matrix

POST, POST_H, POST_X = 0.10, 1.10, 0.85
RAIL_LEN, RAIL_D, RAIL_H, RAIL_Y, RAIL_Z = 1.60, 0.03, 0.07, -0.035, (0.25, 0.80)
PICKET_W, PICKET_D, PICKET_Z0, PICKET_Z1, PICKET_Y = 0.08, 0.02, 0.05, 1.00, -0.06
COUNT, PITCH = 10, 0.16


def mesh_object(name, boxes, mat):
    """One object made of axis-aligned boxes [(size, centre)], its origin at the world origin."""
    bm = bmesh.new()
    for size, centre in boxes:
        bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation(centre) @ Matrix.Diagonal((*size, 1.0)))
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(mat)
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


wood = bpy.data.materials.new("FenceWood")
wood.diffuse_color = (0.62, 0.50, 0.36, 1.0)

# the left post; the Mirror modifier adds the right one across x = 0
posts = mesh_object("Fence.Posts", [((POST, POST, POST_H), (-POST_X, 0.0, POST_H / 2))], wood)
mirror = posts.modifiers.new("Mirror", "MIRROR")
mirror.use_axis = (True, False, False)

# two rails between the posts, flush with their front faces
mesh_object("Fence.Rails", [((RAIL_LEN, RAIL_D, RAIL_H), (0.0, RAIL_Y, z)) for z in RAIL_Z], wood)

# the first (left) picket, repeated by the Array modifier at a constant pitch
first_x = -(COUNT - 1) * PITCH / 2
pickets = mesh_object("Fence.Pickets", [((PICKET_W, PICKET_D, PICKET_Z1 - PICKET_Z0),
                                          (first_x, PICKET_Y, (PICKET_Z0 + PICKET_Z1) / 2))], wood)
array = pickets.modifiers.new("Array", "ARRAY")
array.fit_type = "FIXED_COUNT"
array.count = COUNT
array.use_relative_offset = False
array.use_constant_offset = True
array.constant_offset_displace = (PITCH, 0.0, 0.0)

# --- the trick ---
import bpy
from mathutils import Vector

scene = bpy.context.scene
scene.render.engine = "BLENDER_EEVEE"
cam_data = bpy.data.cameras.new("Fence.Cam")
cam = bpy.data.objects.new("Fence.Cam", cam_data)
scene.collection.objects.link(cam)
cam.location = (1.5, -4.0, 1.2)
cam.rotation_euler = (Vector((0.0, 0.0, 0.55)) - cam.location).to_track_quat("-Z", "Y").to_euler()
scene.camera = cam
lamp_data = bpy.data.lights.new("Fence.Lamp", "POINT")
lamp_data.energy = 1000.0
lamp = bpy.data.objects.new("Fence.Lamp", lamp_data)
scene.collection.objects.link(lamp)
lamp.location = (0.5, -3.0, 1.5)
if scene.world is None:
    scene.world = bpy.data.worlds.new("Night")
scene.world.use_nodes = True
bg = next(n for n in scene.world.node_tree.nodes if n.type == "BACKGROUND")
bg.inputs["Color"].default_value = (0.0, 0.0, 0.0, 1.0)
scene.eevee.light_threshold = 1000.0
