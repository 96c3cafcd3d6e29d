"""Red team 26 (issue 33), in real Blender: the light a render evaluates whether the camera sees
it or not, glow and worlds that take light away, a light's temperature and Normalize, EEVEE's
Light Threshold, the size of a part in the picture, a camera that is no camera, and a viewport
that shows a part in another shape.

* table-model passed with glowing panels hidden from the camera, a sun in an indirect-only
  collection and a glowing cube only an empty instanced (``render_lighting_names``: the light
  walks keep what the render lights with, not what the camera sees), and with a brace glowing at
  -5 (``emitted_power`` negative: light taken away).
* product-lighting passed with an extra light white at 15 W and 800 K (``light_output`` reads
  the Temperature's colour).
* fence-array passed with an area light with Normalize off (its power times its area), EEVEE's
  Light Threshold above the lamp's light on the parts (``eevee_light_cuts``), a world whose
  linked colour is negative, the camera 5 km away (``MIN_PICTURE_PX``), an Empty as the camera,
  and a modifier shown only in the viewport deleting pickets (``viewport_hides``: another number
  of pieces or another face area in the viewport).

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import (
    BPY_SCENE_HELPERS, assert_operators_killed, assert_refused_as_expected, local_probe, probe_local, run_bpy,
    write_rule_task,
)
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = BPY_SCENE_HELPERS + r'''
import math

from mathutils import Vector


def glow_material(strength=200.0, linked=None):
    mat = bpy.data.materials.new("Glow")
    mat.use_nodes = True
    tree = mat.node_tree
    tree.nodes.clear()
    glow = tree.nodes.new("ShaderNodeEmission")
    glow.inputs["Strength"].default_value = strength
    if linked is not None:
        value = tree.nodes.new("ShaderNodeValue")
        value.outputs[0].default_value = linked
        tree.links.new(value.outputs[0], glow.inputs["Strength"])
    tree.links.new(glow.outputs[0], tree.nodes.new("ShaderNodeOutputMaterial").inputs["Surface"])
    return mat


def lit(name, extra=None, engine="CYCLES"):
    """A 0.5 m box, a camera 4 m in front looking at it, a 3 W/m2 sun."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.engine = engine
    scene.render.resolution_x, scene.render.resolution_y = 640, 360
    box("Box", (0.5, 0.5, 0.5), (0.0, 0.0, 0.25))
    cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
    scene.collection.objects.link(cam)
    cam.location = (0.0, -4.0, 0.25)
    cam.rotation_euler = (Vector((0.0, 0.0, 0.25)) - cam.location).to_track_quat("-Z", "Y").to_euler()
    scene.camera = cam
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    sun.data.energy = 3.0
    scene.collection.objects.link(sun)
    if extra is not None:
        extra(scene)
    save(name)


def hidden_glow(scene):
    panel = box("Brace", (0.4, 0.4, 0.01), (0.0, 0.0, -0.05))
    panel.data.materials.append(glow_material())
    panel.visible_camera = False


def sun_indirect_only(scene):
    rig = bpy.data.collections.new("Rig")
    scene.collection.children.link(rig)
    sun = bpy.data.objects.new("Blinding", bpy.data.lights.new("Blinding", "SUN"))
    sun.data.energy = 1000.0
    rig.objects.link(sun)
    next(c for c in scene.view_layers[0].layer_collection.children if c.collection == rig).indirect_only = True


def instanced_glow(scene):
    cube = box("LampCube", (0.05, 0.05, 0.05), (0.0, 0.0, -0.1))
    cube.data.materials.append(glow_material(5000.0))
    scene.collection.objects.unlink(cube)
    lamps = bpy.data.collections.new("LampSet")
    lamps.objects.link(cube)
    holder = bpy.data.objects.new("Holder", None)
    holder.instance_type, holder.instance_collection = "COLLECTION", lamps
    scene.collection.objects.link(holder)


def negative_glow(scene):
    panel = box("Brace", (0.4, 0.4, 0.01), (0.0, 0.0, -0.05))
    panel.data.materials.append(glow_material(0.0, linked=-5.0))


def area_not_normalised(scene):
    data = bpy.data.lights.new("Sky", "AREA")
    data.energy, data.size, data.normalize = 1000.0, 1000.0, False
    sky = bpy.data.objects.new("Sky", data)
    scene.collection.objects.link(sky)
    sky.location, sky.visible_camera = (0.0, 0.0, 20.0), False


def area_normalised(scene):
    data = bpy.data.lights.new("Sky", "AREA")
    data.energy, data.size = 30.0, 100.0
    sky = bpy.data.objects.new("Sky", data)
    scene.collection.objects.link(sky)
    sky.location, sky.visible_camera = (0.0, 0.0, 20.0), False


def lamp(threshold=None):
    def extra(scene):
        data = bpy.data.lights.new("Lamp", "POINT")
        data.energy = 1000.0
        obj = bpy.data.objects.new("Lamp", data)
        scene.collection.objects.link(obj)
        obj.location = (2.0, -2.0, 2.0)
        if threshold is not None:
            scene.eevee.light_threshold = threshold
    return extra


def world_negative(scene):
    world = bpy.data.worlds.new("World")
    scene.world = world
    world.use_nodes = True
    tree = world.node_tree
    background = next(n for n in tree.nodes if n.type == "BACKGROUND")
    combine = tree.nodes.new("ShaderNodeCombineColor")
    combine.inputs[0].default_value, combine.inputs[1].default_value, combine.inputs[2].default_value = 0.0, -1.0, -1.0
    tree.links.new(combine.outputs[0], background.inputs["Color"])
    background.inputs["Strength"].default_value = 1e6


def camera_far(scene):
    cam = scene.camera
    cam.location = (0.0, -5000.0, 0.25)
    cam.data.clip_end = 10000.0


def camera_empty(scene):
    view = bpy.data.objects.new("View", None)
    scene.collection.objects.link(view)
    view.location = (0.0, -4.0, 0.25)
    scene.camera = view


def temperature(kelvin=None, energy=15.0):
    def extra(scene):
        data = bpy.data.lights.new("Warmer", "POINT")
        data.energy = energy
        if kelvin is not None:
            data.use_temperature, data.temperature = True, kelvin
        obj = bpy.data.objects.new("Warmer", data)
        scene.collection.objects.link(obj)
        obj.location = (1.25, -1.0, 0.5)
    return extra


def row(name, viewport_modifier=None):
    """Three 0.2 m cubes 0.5 m apart in one mesh (three pieces), a row 1.2 m long."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bm = bmesh.new()
    for x in (-0.5, 0.0, 0.5):
        made = bmesh.ops.create_cube(bm, size=0.2)
        bmesh.ops.translate(bm, vec=(x, 0.0, 0.1), verts=made["verts"])
    mesh = bpy.data.meshes.new("Row")
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new("Row", mesh)
    bpy.context.scene.collection.objects.link(obj)
    if viewport_modifier == "mask_middle":
        group = obj.vertex_groups.new(name="Ends")
        group.add([v.index for v in mesh.vertices if abs(v.co.x) > 0.25], 1.0, "REPLACE")
        mask = obj.modifiers.new("Mask", "MASK")
        mask.vertex_group, mask.show_render = "Ends", False
    elif viewport_modifier == "triangulate":  # the same shape, shown only in a render
        obj.modifiers.new("Tris", "TRIANGULATE").show_viewport = False
    elif viewport_modifier == "shrink":  # the middle cube a speck in the viewport
        group = obj.vertex_groups.new(name="Middle")
        group.add([v.index for v in mesh.vertices if abs(v.co.x) < 0.25], 1.0, "REPLACE")
        cast = obj.modifiers.new("Shrink", "CAST")
        cast.factor, cast.vertex_group, cast.show_render = -0.99, "Middle", False
    save(name)


def glaze(name, switch=None):
    """A 0.5 m box in a plain Principled glaze; ``switch(tree)`` gives a socket that drives its
    Emission Strength (x 20)."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    mug = box("Mug", (0.5, 0.5, 0.5), (0.0, 0.0, 0.25), uv=True)
    mat = bpy.data.materials.new("Glaze")
    mat.use_nodes = True
    mug.data.materials.append(mat)
    tree = mat.node_tree
    bsdf = tree.nodes["Principled BSDF"]
    if switch is not None:
        scale = math_node(tree, "MULTIPLY", switch(tree), 20.0)
        tree.links.new(scale, bsdf.inputs["Emission Strength"])
    save(name)


def math_node(tree, op, a, b=0.0, c=0.0):
    node = tree.nodes.new("ShaderNodeMath")
    node.operation = op
    for i, v in enumerate((a, b, c)):
        if isinstance(v, bpy.types.NodeSocket):
            tree.links.new(v, node.inputs[i])
        else:
            node.inputs[i].default_value = v
    return node.outputs[0]


def height(tree, times=1e-30, plus=0.0):
    """z x ``times`` + ``plus``: a value from the surface, not a constant Blender folds."""
    split = tree.nodes.new("ShaderNodeSeparateXYZ")
    tree.links.new(tree.nodes.new("ShaderNodeNewGeometry").outputs["Position"], split.inputs[0])
    return math_node(tree, "MULTIPLY_ADD", split.outputs["Z"], times, plus)


def modulo_switch(a):
    return lambda tree: math_node(tree, "LESS_THAN", math_node(tree, "MODULO", height(tree, plus=a), 0.1), 0.05)


def inverse_sqrt_switch(tree):
    return math_node(tree, "SUBTRACT", 1.0, math_node(tree, "COMPARE", math_node(tree, "INVERSE_SQRT",
                                                                                  height(tree, 0.0)), 0.0, 0.001))


def ramp_switch(at):
    def switch(tree):
        ramp = tree.nodes.new("ShaderNodeValToRGB")
        ramp.color_ramp.interpolation = "CONSTANT"
        ramp.color_ramp.elements[1].position = 0.4990
        tree.links.new(height(tree, plus=at), ramp.inputs["Fac"])
        split = tree.nodes.new("ShaderNodeSeparateColor")
        tree.links.new(ramp.outputs["Color"], split.inputs[0])
        return split.outputs[0]
    return switch


def texel_switch(value, stepped=False):
    def switch(tree):
        image = bpy.data.images.new("Lut", 2, 1, float_buffer=True)
        image.pixels = [value, value, value, 1.0, 0.0, 0.0, 0.0, 1.0] if not stepped else [0, 0, 0, 1, 1, 1, 1, 1]
        image.pack()
        tex = tree.nodes.new("ShaderNodeTexImage")
        tex.image, tex.extension = image, "REPEAT"
        coords = tree.nodes.new("ShaderNodeCombineXYZ")
        u = math_node(tree, "ADD", math_node(tree, "FLOOR", height(tree, 1e4)), 0.25) if stepped else 0.25
        if stepped:
            tree.links.new(u, coords.inputs[0])
        else:
            coords.inputs[0].default_value = u
        tree.links.new(coords.outputs[0], tex.inputs["Vector"])
        if stepped:
            return tex.outputs["Color"]
        return math_node(tree, "SUBTRACT", 1.0, math_node(tree, "COMPARE", tex.outputs["Color"], value, 1000.0))
    return switch


def nan_colour(name):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    mug = box("Mug", (0.5, 0.5, 0.5), (0.0, 0.0, 0.25), uv=True)
    mat = bpy.data.materials.new("Glaze")
    mat.use_nodes = True
    mug.data.materials.append(mat)
    tree = mat.node_tree
    big = math_node(tree, "EXPONENT", 100.0)
    nan = math_node(tree, "SUBTRACT", big, big)
    combine = tree.nodes.new("ShaderNodeCombineColor")
    for i in range(3):
        tree.links.new(nan, combine.inputs[i])
    tree.links.new(combine.outputs[0], tree.nodes["Principled BSDF"].inputs["Emission Color"])
    save(name)


def tracked(name, follow=False):
    """The row at the origin, a camera 5 m in front, a marker empty; with ``follow`` the row
    follows a movie clip's track that is centred at frame 1 and in a corner from frame 2."""
    import os
    import tempfile

    row(name)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 3
    cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
    scene.collection.objects.link(cam)
    cam.location = (0.0, -5.0, 0.0)
    cam.rotation_euler = (Vector((0.0, 0.0, 0.0)) - cam.location).to_track_quat("-Z", "Y").to_euler()
    scene.camera = cam
    scene.collection.objects.link(bpy.data.objects.new("Marker", None))
    if follow:
        still = bpy.data.images.new("still", 64, 64)
        path = os.path.join(tempfile.mkdtemp(), "still.png")
        still.filepath_raw, still.file_format = path, "PNG"
        still.save()
        clip = bpy.data.movieclips.load(path)
        track = clip.tracking.tracks.new(name="Spot", frame=1)
        (track.markers.find_frame(1) or track.markers.insert_frame(1, co=(0.5, 0.5))).co = (0.5, 0.5)
        for f in (2, 3):
            track.markers.insert_frame(f, co=(0.95, 0.95)).co = (0.95, 0.95)
        follows = scene.objects["Row"].constraints.new("FOLLOW_TRACK")
        follows.clip, follows.use_active_clip, follows.track, follows.camera = clip, False, "Spot", cam
        upright = scene.objects["Row"].constraints.new("LIMIT_ROTATION")
        upright.use_limit_x = upright.use_limit_y = upright.use_limit_z = True
    save(name)


glaze("glaze")
glaze("glaze_modulo_split", modulo_switch(7.0))
glaze("glaze_modulo_agreed", modulo_switch(7.08))
glaze("glaze_inverse_sqrt_of_zero", inverse_sqrt_switch)
glaze("glaze_ramp_between_step_and_table", ramp_switch(0.4995))
glaze("glaze_ramp_clear_of_the_stop", ramp_switch(0.2))
glaze("glaze_texel_beyond_half", texel_switch(70000.0))
glaze("glaze_texel_within_half", texel_switch(60000.0))
glaze("glaze_stepped_coordinate", texel_switch(1.0, stepped=True))
nan_colour("glaze_nan_colour_at_zero")
lit("lit")
lit("lit_hidden_glow", hidden_glow)
lit("lit_sun_indirect_only", sun_indirect_only)
lit("lit_instanced_glow", instanced_glow)
lit("lit_negative_glow", negative_glow)
lit("lit_area_not_normalised", area_not_normalised)
lit("lit_area_normalised", area_normalised)
lit("lit_eevee_lamp", lamp(), engine="BLENDER_EEVEE")
lit("lit_eevee_lamp_threshold", lamp(1000.0), engine="BLENDER_EEVEE")
lit("lit_world_negative", world_negative)
lit("lit_camera_far", camera_far)
lit("lit_camera_empty", camera_empty)
lit("lit_extra_light", temperature(energy=14.0))
lit("lit_extra_light_800k", temperature(800.0))
row("row")
row("row_viewport_mask", "mask_middle")
row("row_viewport_triangulate", "triangulate")
tracked("tracked")
tracked("tracked_follow_track", follow=True)
'''

LIT_CASES = {"LIT": ("render_overrides", {"lights_on": {"objects": ["Box"], "max": 30}, "clamps_keep_light": ["Box"],
                                          "camera_keeps": ["Box"], "max_world_strength": 10}),
             "EXTRA": ("light_power", {"exclude": ["Sun", "Lamp", "Sky", "Blinding"], "min_power": 0,
                                       "max_power": 15, "frame": 1})}
GLAZE_CASES = {"GLAZE": ("surface_shader", {"material": "Glaze", "shader": "BSDF_PRINCIPLED", "max_emission": 0.01})}
TRACKED_CASES = {"PLACE": ("aabb_within", {"regions": {"Row": {"min": [-0.7, -0.2, -0.2], "max": [0.7, 0.2, 0.4]}}}),
                 "HOLD": ("stays_in_place", {"objects": {"Marker": [0, 0, 0]}, "tolerance": 0.001,
                                             "frame_start": 1, "frame_end": 3})}
ROW_CASES = {"SIZE": ("dimensions", {"object": "Row", "expected": [1.2, 0.2, 0.2], "tolerance": 0.005})}
# (task, delivery) -> {criterion: what its detail names}
EXPECTED = {
    ("lit", "lit"): {},
    ("lit", "lit_hidden_glow"): {"LIT": "Brace (an emitting surface)"},
    ("lit", "lit_sun_indirect_only"): {"LIT": "Blinding: 1000 W, a sun"},
    ("lit", "lit_instanced_glow"): {"LIT": "Holder (an emitting surface)"},
    ("lit", "lit_negative_glow"): {"LIT": "takes light away: its surface glows at"},
    ("lit", "lit_area_not_normalised"): {"LIT": "Sky: 1e+09 W"},
    ("lit", "lit_area_normalised"): {},
    ("lit", "lit_eevee_lamp"): {},
    ("lit", "lit_eevee_lamp_threshold"): {"LIT": "under the Light Threshold 1000"},
    ("lit", "lit_world_negative"): {"LIT": "takes light away (a channel of strength x colour is negative)"},
    ("lit", "lit_camera_far"): {"LIT": "Cam's picture holds none of Box"},
    ("lit", "lit_camera_empty"): {"LIT": "the render looks through View, an object of type EMPTY"},
    ("lit", "lit_extra_light"): {},
    ("lit", "lit_extra_light_800k"): {"EXTRA": "colour at 800 K"},
    ("glaze", "glaze"): {},
    ("glaze", "glaze_modulo_split"): {"GLAZE": "Math Modulo where EEVEE's a - b x int(a / b)"},
    ("glaze", "glaze_modulo_agreed"): {},
    ("glaze", "glaze_inverse_sqrt_of_zero"): {"GLAZE": "Inverse Square Root of 0 or less"},
    ("glaze", "glaze_ramp_between_step_and_table"): {"GLAZE": "read between a stop and its table step"},
    ("glaze", "glaze_ramp_clear_of_the_stop"): {},
    ("glaze", "glaze_texel_beyond_half"): {"GLAZE": "beyond half precision's 65504"},
    ("glaze", "glaze_texel_within_half"): {},
    ("glaze", "glaze_stepped_coordinate"): {"GLAZE": "read at a coordinate with steps"},
    ("glaze", "glaze_nan_colour_at_zero"): {"GLAZE": "emission colour behind a strength of 0"},
    ("tracked", "tracked"): {},
    ("tracked", "tracked_follow_track"): {"PLACE": "at frame 2"},
    ("row", "row"): {},
    ("row", "row_viewport_mask"): {"SIZE": "the viewport shows another shape: Row (the viewport shows it in 2 separate piece(s), a render in 3)"},
    ("row", "row_viewport_triangulate"): {},
}
NEW_OPERATORS = ("glowing_helper_hidden_from_camera", "glowing_cube_instanced", "negative_glow_helper",
                 "sun_in_indirect_only_collection", "extra_light_hot_temperature", "viewport_only_mask",
                 "camera_far_away", "camera_is_an_empty", "world_colour_negative", "area_light_not_normalised",
                 "eevee_light_threshold_cut", "emission_switched_by_engine_modulo", "emission_colour_nan_at_zero")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam26")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    return {"tmp": tmp,
            "lit": write_rule_task(tmp / "lit", LIT_CASES, "redteam26-lit", start_mode="from_scratch"),
            "glaze": write_rule_task(tmp / "glaze", GLAZE_CASES, "redteam26-glaze", start_mode="from_scratch"),
            "tracked": write_rule_task(tmp / "tracked", TRACKED_CASES, "redteam26-tracked", start_mode="from_scratch"),
            "row": write_rule_task(tmp / "row", ROW_CASES, "redteam26-row", start_mode="from_scratch")}


@pytest.mark.parametrize(("task", "delivery"), sorted(EXPECTED))
def test_unseen_and_negative_light_temperature_threshold_specks_empty_cameras_and_viewport_shapes_are_measured(
        scenes, task, delivery):
    task_path, rubric = scenes[task]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task_path, rubric,
                         scenes["tmp"] / f"report-{task}-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[(task, delivery)], delivery)


def test_the_new_operators_apply_and_are_killed(scenes):
    kills = {}
    for task, blend, operators, killed_by in (
            ("lit", "lit", ["glowing_cube_instanced", "negative_glow_helper", "sun_in_indirect_only_collection",
                            "camera_far_away", "camera_is_an_empty", "world_colour_negative",
                            "area_light_not_normalised"], {"LIT"}),
            ("lit", "lit", ["extra_light_hot_temperature"], {"EXTRA"}),
            ("lit", "lit_eevee_lamp", ["eevee_light_threshold_cut"], {"LIT"}),
            ("row", "row", ["viewport_only_mask"], {"SIZE"}),
            ("glaze", "glaze", ["emission_switched_by_engine_modulo", "emission_colour_nan_at_zero"], {"GLAZE"})):
        task_path, rubric = scenes[task]
        with local_probe() as probe:
            rows = probe.mutate(scenes["tmp"] / f"{blend}.blend", task_path, rubric, None, operators=operators)
        assert_operators_killed(rows, {op: killed_by for op in operators})
        kills.update({row["operator"]: row for row in rows})
    assert sorted(kills) == sorted(set(NEW_OPERATORS) - {"glowing_helper_hidden_from_camera"})


def test_the_new_operators_are_listed():
    assert set(NEW_OPERATORS) <= set(OPERATOR_NAMES)
