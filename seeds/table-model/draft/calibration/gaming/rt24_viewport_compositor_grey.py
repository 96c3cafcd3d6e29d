"""Gaming (must fail): the file opens on a Material Preview viewport whose viewport compositor
paints the whole view flat grey, through a compositing node group the render does not use.

The five parts are the reference's; Render > Post Processing > Compositing is off, so a render
is the plain table. But the scene's compositing node group outputs a flat RGB colour (no Render
Layers at all), and every 3D view saved in the file is in Material Preview with the viewport
compositor set to Always: opened in Blender, the viewport shows one flat grey field, no table
(spec: "The model is what the file shows when opened too: every part shows its surface in the
viewport"). The grader's compositor_alters returns "compositing off" at the render switch.
UNVERIFIED here (no GUI): whether Blender 5.2's viewport compositor runs with Compositing off.
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

scene = bpy.context.scene
tree = bpy.data.node_groups.new("Compositing", "CompositorNodeTree")
tree.interface.new_socket("Image", in_out="OUTPUT", socket_type="NodeSocketColor")
rgb = tree.nodes.new("CompositorNodeRGB")
rgb.outputs[0].default_value = (0.5, 0.5, 0.5, 1.0)
out = tree.nodes.new("NodeGroupOutput")
tree.links.new(rgb.outputs[0], out.inputs[0])
scene.compositing_node_group = tree
scene.render.use_compositing = False

for screen in bpy.data.screens:
    for area in screen.areas:
        for space in area.spaces:
            if space.type == "VIEW_3D":
                space.shading.type = "MATERIAL"
                space.shading.use_compositor = "ALWAYS"
