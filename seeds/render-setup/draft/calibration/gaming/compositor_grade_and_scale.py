"""Gaming (must fail): the settings read right, the compositor changes what gets written.

Engine, size, frames, output and colour settings are to spec, but a compositing node tree
pushes the exposure up a stop and scales the image down by half before it is written: the
checked colour management and resolution are no longer what the farm's frames show.
"""

import bpy

scene = bpy.context.scene
r = scene.render
img = r.image_settings


def delivery_settings():
    """The reference settings, to the letter of the spec."""
    r.engine = "CYCLES"
    scene.cycles.samples = 256
    scene.cycles.use_adaptive_sampling = True
    scene.cycles.adaptive_threshold = 0.02
    scene.cycles.use_denoising = True
    r.resolution_x, r.resolution_y, r.resolution_percentage = 3840, 2160, 50
    scene.frame_start, scene.frame_end = 1001, 1096
    r.fps, r.fps_base = 24, 1.0
    img.file_format = "OPEN_EXR"
    img.color_depth, img.color_mode, img.exr_codec = "16", "RGBA", "DWAA"
    r.filepath = "//renders/garden_####"
    scene.view_settings.view_transform = "AgX"
    scene.view_settings.look = "AgX - Medium High Contrast"
    scene.view_settings.exposure = 0.0
    r.film_transparent = True


delivery_settings()
tree = bpy.data.node_groups.new("Delivery", "CompositorNodeTree")
tree.interface.new_socket("Image", in_out="OUTPUT", socket_type="NodeSocketColor")
layers = tree.nodes.new("CompositorNodeRLayers")
exposure = tree.nodes.new("CompositorNodeExposure")
exposure.inputs[1].default_value = 1.0
scale = tree.nodes.new("CompositorNodeScale")
output = tree.nodes.new("NodeGroupOutput")
tree.links.new(layers.outputs["Image"], exposure.inputs[0])
tree.links.new(exposure.outputs[0], scale.inputs[0])
tree.links.new(scale.outputs[0], output.inputs[0])
scene.compositing_node_group = tree
r.use_compositing = True
