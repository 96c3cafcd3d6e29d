"""Red teams 8 and 10 (issue 33), in real Blender: Freestyle lines over the picture, a world lit
by an Emission shader or from inside a node group, and a delivery that kills the probe.

Freestyle strokes 10,000 px wide paint every render over with one flat field of lines.  The
probe's own render crashed Blender on such a file (a segfault: no grade at all); it now lends its
render Freestyle off, measures the scene, and `render_overrides` refuses Freestyle on for the
render and a view layer that renders (off by default).  Freestyle ticked on the render while no
view layer draws it shows nothing and passes.  A world output takes an Emission shader as its
light, and a node group hid a Background from `world_strength`: both are read now.

Whatever else makes the probe die on opening a delivery, calibration judges a gaming sample as a
trial's verifier does (`bpy_procs.probe_as_trial`, `tests/test.sh`): killed after the probe's
start marker is a 0 with `DeliveryCrashedProbe`; a failure before it is never a score (the task
author's probes that do not import are named, anything else is infra).
Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import json

import pytest

from blender.runner import ScriptFailed
from sandbox.script_run import LOCAL
from tests.probe_cases import probe_local, assert_refused_as_expected, build_scenes
from verifiers import bpy_procs
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = r'''
import sys
from pathlib import Path

import bpy

out = Path(sys.argv[-1])
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0.0, 0.0, 0.5))
bpy.context.active_object.name = "Cube"
scene = bpy.context.scene
scene.camera = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
scene.collection.objects.link(scene.camera)
scene.camera.location = (0.0, -6.0, 1.0)
scene.camera.rotation_euler = (1.45, 0.0, 0.0)
bpy.ops.wm.save_as_mainfile(filepath=str(out / "start.blend"))


def blanket(layer_on):
    render = scene.render
    render.use_freestyle, render.line_thickness_mode, render.line_thickness = True, "ABSOLUTE", 10000.0
    view_layer = scene.view_layers[0]
    view_layer.use_freestyle = layer_on
    lineset = view_layer.freestyle_settings.linesets.new("Blanket")
    lineset.select_by_visibility = False
    lineset.select_silhouette = lineset.select_border = lineset.select_crease = True
    lineset.linestyle = bpy.data.linestyles.new("Blanket")
    lineset.linestyle.thickness = 10000.0


blanket(True)
bpy.ops.wm.save_as_mainfile(filepath=str(out / "freestyle.blend"))
scene.view_layers[0].use_freestyle = False
bpy.ops.wm.save_as_mainfile(filepath=str(out / "freestyle_no_layer.blend"))


def world(name, shader, strength, grouped):
    bpy.ops.wm.open_mainfile(filepath=str(out / "start.blend"))
    scene = bpy.context.scene
    scene.world = bpy.data.worlds.new("World")
    scene.world.use_nodes = True
    tree = scene.world.node_tree
    for node in [n for n in tree.nodes if n.type != "OUTPUT_WORLD"]:
        tree.nodes.remove(node)
    host = tree
    if grouped:
        host = bpy.data.node_groups.new("Sky", "ShaderNodeTree")
        host.interface.new_socket("Shader", in_out="OUTPUT", socket_type="NodeSocketShader")
    light = host.nodes.new(shader)
    light.inputs["Strength"].default_value = strength
    if grouped:
        host.links.new(light.outputs[0], host.nodes.new("NodeGroupOutput").inputs[0])
        light = tree.nodes.new("ShaderNodeGroup")
        light.node_tree = host
    tree.links.new(light.outputs[0], next(n for n in tree.nodes if n.type == "OUTPUT_WORLD").inputs["Surface"])
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


world("world_emission", "ShaderNodeEmission", 1e6, False)
world("world_group", "ShaderNodeBackground", 1e6, True)
world("world_group_dim", "ShaderNodeEmission", 1.0, True)
'''

CASES = {
    "RENDER": ("render_overrides", {}),
    "WORLD": ("render_overrides", {"max_world_strength": 10}),
    "SIZE": ("dimensions", {"object": "Cube", "expected": [1.0, 1.0, 1.0], "tolerance": 0.001}),
}
EXPECTED = {
    "start": {},
    "freestyle": {"RENDER": "freestyle is True, not False", "WORLD": "freestyle is True, not False"},
    "freestyle_no_layer": {},  # no view layer draws the lines: the picture is left alone
    # the world's light as an Emission shader, or inside a node group (red team 10)
    "world_emission": {"WORLD": "Emission: strength 1e+06)"},
    "world_group": {"WORLD": "Background: strength 1e+06)"},
    "world_group_dim": {},
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    return build_scenes(tmp_path_factory.mktemp("redteam8-render"), MAKE, CASES, "redteam8-render", "from_scratch")


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_render_settings_over_the_picture_are_refused_not_a_crash(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                                   scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)


def test_the_new_render_operators_are_listed():
    assert {"freestyle_blanket", "world_group_emission"} <= set(OPERATOR_NAMES)


# A task primitive that dies as the environment says: after the probe's start marker (the
# delivery is being measured) or on import (before the marker: the verifier's own failure).
BREAKING_PROBES = '''\
import os, signal
from probe_core import Outcome, primitive

if os.environ.get("ARKEVO_TEST_BREAK") == "import":
    raise RuntimeError("task probes broken")


@primitive(group="task")
def breaks_the_probe(probe, params):
    if os.environ.get("ARKEVO_TEST_BREAK") == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    return Outcome(1.0, True, None, None, "fine")
'''


def test_a_delivery_that_kills_the_probe_is_judged_as_a_trial_judges_it(scenes, tmp_path, monkeypatch):
    task_dir = tmp_path / "task"
    task_dir.mkdir()
    criterion = {"id": "C01", "requirement_id": "REQ-X", "channel": "rule", "method": "breaks_the_probe",
                 "weight": 1.0, "core": False, "description": "x"}
    task, rubric = task_dir / "task.json", task_dir / "rubric.json"
    task.write_text(json.dumps({"criteria": [criterion], "verification": {
        "weights": {"rule": 1.0, "vl": 0.0, "agent": 0.0}, "pass_threshold": 0.7, "core_failure_cap": 0.4}}))
    rubric.write_text(json.dumps({"criteria": [{"id": "C01", "method": "breaks_the_probe", "params": {}}]}))
    (task_dir / "task_probes.py").write_text(BREAKING_PROBES)
    blend, out = scenes["tmp"] / "start.blend", tmp_path / "report.json"

    monkeypatch.setenv("ARKEVO_TEST_BREAK", "")
    assert bpy_procs.probe_as_trial(blend, task, rubric, out, sandbox=LOCAL)["rule_score"] == 1.0

    monkeypatch.setenv("ARKEVO_TEST_BREAK", "crash")
    report = bpy_procs.probe_as_trial(blend, task, rubric, out, sandbox=LOCAL)
    assert report["delivery_problem"]["type"] == "DeliveryCrashedProbe"
    assert report["rule_score"] == 0.0 and report["success"] is False
    assert [c["score"] for c in report["criteria"]] == [0.0]

    monkeypatch.setenv("ARKEVO_TEST_BREAK", "import")
    with pytest.raises(ScriptFailed, match="task probes broken"):  # the author's probes: named, never a 0
        bpy_procs.probe_as_trial(blend, task, rubric, out, sandbox=LOCAL)
