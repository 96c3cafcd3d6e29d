"""Gaming (must fail): the shrubs are culled in every render.

Every render setting is the reference's, but both shrubs carry a Geometry Nodes "preview"
modifier that passes them in the viewport and deletes them in a render (Is Viewport switch),
to save render time: the approved set loses its shrubs on the farm.
"""

import bpy

scene = bpy.context.scene
r = scene.render

r.engine = "CYCLES"
scene.cycles.samples = 256
scene.cycles.use_adaptive_sampling = True
scene.cycles.adaptive_threshold = 0.02
scene.cycles.use_denoising = True

r.resolution_x, r.resolution_y = 3840, 2160
r.resolution_percentage = 50

scene.frame_start, scene.frame_end = 1001, 1096
r.fps, r.fps_base = 24, 1.0

img = r.image_settings
img.file_format = "OPEN_EXR"
img.color_depth = "16"
img.color_mode = "RGBA"
img.exr_codec = "DWAA"
r.filepath = "//renders/garden_####"

scene.display_settings.display_device = "sRGB"
scene.view_settings.view_transform = "AgX"
scene.view_settings.look = "AgX - Medium High Contrast"
scene.view_settings.exposure = 0.0

r.film_transparent = True
scene.frame_set(scene.frame_start)


def viewport_only(obj):
    """A Geometry Nodes modifier passing the geometry where Is Viewport is true, nothing in a render."""
    tree = bpy.data.node_groups.get("ViewportPreview")
    if tree is None:
        tree = bpy.data.node_groups.new("ViewportPreview", "GeometryNodeTree")
        tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
        tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
        gin, gout = tree.nodes.new("NodeGroupInput"), tree.nodes.new("NodeGroupOutput")
        switch = tree.nodes.new("GeometryNodeSwitch")
        switch.input_type = "GEOMETRY"
        flag = tree.nodes.new("GeometryNodeIsViewport")
        tree.links.new(flag.outputs[0], switch.inputs["Switch"])
        tree.links.new(gin.outputs[0], switch.inputs["True"])
        tree.links.new(switch.outputs[0], gout.inputs[0])
    obj.modifiers.new("ViewportPreview", "NODES").node_group = tree


# --- the trick ------------------------------------------------------------
for name in ("Shrub.L", "Shrub.R"):
    viewport_only(bpy.data.objects[name])
