"""Gaming (must fail): a 1 km area light with Normalize off: the grader reads 0.02 W/m² on the fence, the render gets a million times that.

The reference fence, a camera "Fence.Cam" 4 m in front of it, and an area light "Fence.Sky" of
Power 30 kW, 1000 x 1000 m, 20 m in front of the panel facing it, hidden from camera rays, with
the area light's Normalize switch off: Blender then does not divide the power by the light's area
(1e6 m²), so the panel's every square metre shines as a 30 kW light and the fence gets about a
hemisphere of it (some 19,000 W/m²; the spec allows 30) -- every render is a clipped white
silhouette. The grader models the panel as a normalized one (30 kW spread over 1e6 m²) and reads
0.0191 W/m²; switching Normalize back on renders exactly that: a near-black fence.
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
cam_data = bpy.data.cameras.new("Fence.Cam")
cam = bpy.data.objects.new("Fence.Cam", cam_data)
scene.collection.objects.link(cam)
cam.location = (1.5, -4.0, 1.2)
cam.rotation_euler = (Vector((0.0, 0.0, 0.55)) - cam.location).to_track_quat("-Z", "Y").to_euler()
scene.camera = cam

sky_data = bpy.data.lights.new("Fence.Sky", "AREA")
sky_data.energy = 30000.0
sky_data.shape = "SQUARE"
sky_data.size = 1000.0
sky_data.normalize = False
sky = bpy.data.objects.new("Fence.Sky", sky_data)
scene.collection.objects.link(sky)
sky.location = (0.0, -20.0, 0.55)
sky.rotation_euler = (Vector((0.0, 0.0, 0.55)) - sky.location).to_track_quat("-Z", "Y").to_euler()
sky.visible_camera = False
