"""Gaming (must fail): the file opens on a Solid viewport coloured by Texture, and Wood's
viewport texture is a fully transparent image: the Solid view discards every face of the table.

The five parts are the reference's and render as the reference table (Eevee and Cycles use
Wood's Principled BSDF, alpha 1). But Wood also holds an unconnected Image Texture node (the
active node, the one the Solid view's Texture colour draws) showing a generated 64 x 64 image of
colour (0, 0, 0, 0) (a generated image: no file needed); every 3D view saved in the file uses
Solid shading with Color = Texture (and so does the scene's Workbench shading). The Solid
view / Workbench alpha-tests the texture and drops its fully transparent texels, so,
opened in Blender, the Solid view discards every pixel of the table: the viewport is empty
(spec: "The model is what the file shows when opened too:
every part shows its surface in the viewport (not disabled or hidden there ...)"). The grader
reads X-Ray alpha, object-colour alpha and the material's viewport alpha, not a texture's alpha.
"""
import math

import bmesh
import bpy
from mathutils import Matrix

WIDTH, DEPTH, HEIGHT, TOP = 1.20, 0.80, 0.75, 0.04
LEG, INSET = 0.06, 0.03


def box_object(name, size, base_center, mat):
    sx, sy, sz = size
    bm = bmesh.new()
    bm.loops.layers.uv.new("UVMap")
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation((0, 0, sz / 2)) @ Matrix.Diagonal((sx, sy, sz, 1)),
                          calc_uvs=True)
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
wood.use_nodes = True
nodes = wood.node_tree.nodes
nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.55, 0.36, 0.20, 1.0)
img = bpy.data.images.new("WoodGrain", 64, 64, alpha=True)
img.generated_color = (0.0, 0.0, 0.0, 0.0)
tex = nodes.new("ShaderNodeTexImage")  # not linked: the render never reads it
tex.image = img
nodes.active = tex

leg_h = HEIGHT - TOP
box_object("Tabletop", (WIDTH, DEPTH, TOP), (0, 0, leg_h), wood)
dx, dy = WIDTH / 2 - INSET - LEG / 2, DEPTH / 2 - INSET - LEG / 2
for tag, (x, y) in {"FL": (-dx, -dy), "FR": (dx, -dy), "BL": (-dx, dy), "BR": (dx, dy)}.items():
    box_object(f"Leg.{tag}", (LEG, LEG, leg_h), (x, y, 0), wood)

sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
sun.rotation_euler = (math.radians(40), math.radians(10), math.radians(30))
bpy.context.scene.collection.objects.link(sun)

# every 3D view saved in the file: Solid, coloured by Texture (the scene's own Workbench
# shading too, which a Workbench / viewport render uses)
for screen in bpy.data.screens:
    for area in screen.areas:
        for space in area.spaces:
            if space.type == "VIEW_3D":
                space.shading.type = "SOLID"
                space.shading.color_type = "TEXTURE"
bpy.context.scene.display.shading.color_type = "TEXTURE"
