"""Red team 14 (issue 33), in real Blender: lights a render draws, and lights that blind or blacken
the parts.

* fence-array's `rt14_light_shell`: the reference fence inside a point light of 3 m radius whose
  camera ray visibility is on.  Cycles draws that light as one white ball hiding the panel, yet a
  light was an allowed "other" and `others_drawn` counted geometry only.  It now counts every
  light whose emitter the camera sees (`probes_scene.shown_to_camera`: a ball, a panel, a sun
  disc; instanced lights credited to their instancer), held to `others_within` by the emitter's
  reach.
* A light bright enough whites the parts out (a 1e6 sun), one of negative power blackens them:
  `render_overrides` `lights_on` {objects, max} bounds what the lights together put on the parts
  (W/m² at the nearest point of their box) and refuses negative light.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import local_probe, probe_local, assert_operators_killed, assert_refused_as_expected, build_scenes
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(600)]

MAKE = r'''
import sys
from pathlib import Path

import bpy

out = Path(sys.argv[-1])


def start():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0.0, 0.0, 0.5))
    bpy.context.active_object.name = "Cube"
    bpy.context.scene.render.engine = "CYCLES"


def light(name, kind, energy, location, camera=False, **settings):
    data = bpy.data.lights.new(name, kind)
    data.energy = energy
    for key, value in settings.items():
        setattr(data, key, value)
    obj = bpy.data.objects.new(name, data)
    obj.location, obj.visible_camera = location, camera
    bpy.context.scene.collection.objects.link(obj)
    return obj


def save(name):
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


# honest: a 1000 W key and a sun, neither seen by the camera; a camera-visible point of no radius
start()
light("Key", "POINT", 1000.0, (4.0, -4.0, 5.0))
light("Sun", "SUN", 3.0, (0.0, 0.0, 5.0))
light("Spot", "POINT", 100.0, (-3.0, -3.0, 2.0), camera=True, shadow_soft_size=0.0)
save("honest")

start()  # the red team's shell, weak and away from the cube: only its ball shows
light("Shell", "POINT", 1.0, (0.0, -5.0, 0.5), camera=True, shadow_soft_size=3.0)
save("light_shell")

start()  # an area light wall between the camera and the cube
wall = light("Wall", "AREA", 5.0, (0.0, -2.0, 0.5), camera=True, size=4.0)
wall.rotation_euler = (-1.5708, 0.0, 0.0)
save("area_wall")

start()
light("Noon", "SUN", 3.0, (0.0, 0.0, 5.0), camera=True)
save("sun_disc")

start()  # the shell in a collection no view layer renders, drawn by an empty that instances it
hidden = bpy.data.collections.new("Lamps")
bpy.context.scene.collection.children.link(hidden)
data = bpy.data.lights.new("Ball", "POINT")
data.energy, data.shadow_soft_size = 1.0, 3.0
ball = bpy.data.objects.new("Ball", data)
ball.visible_camera = True
hidden.objects.link(ball)
bpy.context.view_layer.layer_collection.children["Lamps"].exclude = True
holder = bpy.data.objects.new("Holder", None)
holder.instance_type, holder.instance_collection = "COLLECTION", hidden
holder.location = (0.0, -5.0, 0.5)
bpy.context.scene.collection.objects.link(holder)
save("instanced_shell")

start()  # a small glow beside the cube: inside a region that allows others, drawn all the same
light("Glow", "POINT", 1.0, (0.0, -0.6, 0.5), camera=True, shadow_soft_size=0.05)
save("small_glow")

start()
light("Blaze", "SUN", 1e6, (0.0, 0.0, 5.0))
save("sun_blowout")

start()
light("Dark", "POINT", -3000.0, (0.0, -3.0, 1.5))
save("negative_light")

start()  # Blender's default 1000 W point light half a metre from the cube's face
light("Close", "POINT", 1000.0, (0.0, -1.0, 0.5))
save("close_lamp")
'''

REGION = {"min": [-0.7, -0.7, -0.1], "max": [0.7, 0.7, 1.2]}
CASES = {
    "DRAWN": ("others_drawn", {"expected": ["Cube"], "frame": 1}),
    "BOXED": ("others_drawn", {"expected": ["Cube"], "others_within": REGION, "frame": 1}),
    "LIGHTS": ("render_overrides", {"lights_on": {"objects": ["Cube"], "max": 30}}),
}
EXPECTED = {
    "honest": {},
    "light_shell": {"DRAWN": "Shell: its 3 m radius ball shows to the camera",
                    "BOXED": "a light the camera sees, outside the region: Shell"},
    "area_wall": {"DRAWN": "Wall: its 4 m emitting panel shows to the camera", "BOXED": "Wall"},
    "sun_disc": {"DRAWN": "Noon: its sun disc shows to the camera", "BOXED": "Noon: its sun disc"},
    "instanced_shell": {"DRAWN": "Holder draws Ball: its 3 m radius ball", "BOXED": "Holder draws Ball"},
    "small_glow": {"DRAWN": "Glow: its 0.05 m radius ball shows to the camera"},
    "sun_blowout": {"LIGHTS": "Blaze: 1e+06 W, a sun"},
    "negative_light": {"LIGHTS": "Dark: takes light away"},
    "close_lamp": {"LIGHTS": "Close: 1000 W, 0.5 m away"},
}
NEW_OPERATORS = ("light_shell_over_parts", "blinding_sun")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    return build_scenes(tmp_path_factory.mktemp("redteam14-lights"), MAKE, CASES, "redteam14-lights",
                        start_mode="from_scratch")


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_lights_a_render_draws_are_graded(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                                   scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)


def test_the_new_operators_apply_and_are_killed(scenes):
    with local_probe() as probe:
        rows = probe.mutate(scenes["tmp"] / "honest.blend", scenes["task"], scenes["rubric"],
                            operators=list(NEW_OPERATORS))
    assert_operators_killed(rows, {"light_shell_over_parts": {"DRAWN", "BOXED"}, "blinding_sun": {"LIGHTS"}})


def test_the_new_operators_are_listed():
    assert set(NEW_OPERATORS) <= set(OPERATOR_NAMES)
