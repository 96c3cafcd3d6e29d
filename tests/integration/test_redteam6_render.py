"""Red team 6 (issue 33), render settings, in real Blender: a from-scratch model whose file
renders a blank picture through its own settings.

A from-scratch scene (a cube) and deliveries that each blank every render without touching the
model: a Video Sequencer Color strip over the frames, a compositor that outputs a flat colour,
an exposure of -32, a render border in a corner, the Workbench engine, a 16 x 9 picture (and red
team 7's Cycles film exposure 0, a world of strength 1e6, motion blur, a 500 px pixel filter, a
200:1 pixel aspect).  Each is
refused by `render_overrides` with the check named; honest deliveries (Cycles, another view
transform and look, a muted strip, the sequencer on with no strip) pass.  Blender runs unsandboxed
(LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import local_probe, probe_local, assert_operators_killed, assert_refused_as_expected, build_scenes

pytestmark = pytest.mark.blender

MAKE = r'''
import sys
from pathlib import Path

import bpy

out = Path(sys.argv[-1])
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0.0, 0.0, 0.5))
bpy.context.active_object.name = "Cube"
bpy.ops.wm.save_as_mainfile(filepath=str(out / "start.blend"))


def variant(name, change):
    bpy.ops.wm.open_mainfile(filepath=str(out / "start.blend"))
    change(bpy.context.scene)
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


def strip(scene, mute=False):
    editor = scene.sequence_editor_create()
    flat = editor.strips.new_effect(name="Flat", type="COLOR", channel=1, frame_start=1, length=300)
    flat.mute = mute
    scene.render.use_sequencer = True


def honest(scene):
    scene.render.engine = "CYCLES"
    scene.view_settings.view_transform = "Standard"
    scene.view_settings.look = "None"


def compositor(scene):
    tree = bpy.data.node_groups.new("Comp", "CompositorNodeTree")
    tree.interface.new_socket("Image", in_out="OUTPUT", socket_type="NodeSocketColor")
    tree.nodes.new("CompositorNodeRLayers")
    rgb = tree.nodes.new("CompositorNodeRGB")
    tree.links.new(rgb.outputs[0], tree.nodes.new("NodeGroupOutput").inputs[0])
    scene.compositing_node_group = tree
    scene.render.use_compositing = True


def exposure(scene):
    scene.view_settings.exposure = -32.0


def border(scene):
    r = scene.render
    r.use_border = True
    r.border_min_x, r.border_max_x, r.border_min_y, r.border_max_y = 0.0, 0.02, 0.98, 1.0


def workbench(scene):
    scene.render.engine = "BLENDER_WORKBENCH"


def tiny(scene):
    scene.render.resolution_x, scene.render.resolution_y = 16, 9


def film(scene):
    scene.render.engine = "CYCLES"
    scene.cycles.film_exposure = 0.0


def world(scene, strength=1e6):
    scene.world = scene.world or bpy.data.worlds.new("World")
    scene.world.use_nodes = True
    background = next(n for n in scene.world.node_tree.nodes if n.type == "BACKGROUND")
    background.inputs["Color"].default_value = (1.0, 1.0, 1.0, 1.0)
    background.inputs["Strength"].default_value = strength


for name, change in [("honest", honest), ("muted_strip", lambda s: strip(s, mute=True)),
                     ("sequencer_empty", lambda s: setattr(s.render, "use_sequencer", True)),
                     ("strip", strip), ("compositor", compositor), ("exposure", exposure), ("border", border),
                     ("workbench", workbench), ("tiny", tiny), ("film", film), ("bright_world", lambda s: world(s, 3.0)),
                     ("world", world), ("motion", lambda s: setattr(s.render, "use_motion_blur", True)),
                     ("filter", lambda s: setattr(s.render, "filter_size", 500.0)),
                     ("aspect", lambda s: setattr(s.render, "pixel_aspect_x", 200.0))]:
    variant(name, change)
'''

CASES = {"RENDER": ("render_overrides", {"compositor": False, "sequencer": False, "colour_neutral": True,
                                         "engines": ["BLENDER_EEVEE", "CYCLES"], "min_resolution": [640, 360],
                                         "motion_blur": False, "square_pixels": True, "max_pixel_filter": 3,
                                         "max_world_strength": 10})}
# delivery -> {criterion that must refuse it: what its detail names} (the others pass)
EXPECTED = {
    "start": {}, "honest": {}, "muted_strip": {}, "sequencer_empty": {},
    "strip": {"RENDER": "sequencer is True"},
    "compositor": {"RENDER": "compositor is True"},
    "exposure": {"RENDER": "exposure -32"},
    "border": {"RENDER": "border is True"},
    "workbench": {"RENDER": "engine is 'BLENDER_WORKBENCH'"},
    "tiny": {"RENDER": "min_resolution is [16, 9]"},
    # red team 7: the same class through settings the first list missed
    "bright_world": {},
    "film": {"RENDER": "Cycles film exposure 0"},
    "world": {"RENDER": "max_world_strength is 1000000"},
    "motion": {"RENDER": "motion_blur is True"},
    "filter": {"RENDER": "max_pixel_filter is 500"},
    "aspect": {"RENDER": "square_pixels is [200.0, 1.0]"},
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    return build_scenes(tmp_path_factory.mktemp("redteam6-render"), MAKE, CASES, "redteam6-render", "from_scratch")


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_each_blanking_setting_is_refused_and_honest_settings_pass(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                                   scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)


def test_render_operators_apply_and_are_killed(scenes):
    killed_by = {"exposure_crushed": {"RENDER"}, "compositor_flat": {"RENDER"}, "sequencer_strip": {"RENDER"},
                 "render_override": {"RENDER"}}
    with local_probe() as probe:
        rows = probe.mutate(scenes["tmp"] / "start.blend", scenes["task"], scenes["rubric"], operators=list(killed_by))
    assert_operators_killed(rows, killed_by)
