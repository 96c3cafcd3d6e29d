"""Red team 13 (issue 33), in real Blender: the file's working colour space, and a compositor that
reads a view layer that does not render.

* `bpy.ops.wm.set_working_color_space(convert_colors=False)` switches the primaries every stored
  colour is read with (Linear Rec.709 -> Linear Rec.2020): the same numbers render more
  saturated.  render-setup's sample was refused only through a white-balance side effect; the
  snapshot's render section now holds `working_space`, so `scene_unchanged` names it, and
  `render_overrides` holds it to Linear Rec.709 (a new file's) unless the task names another.
* A compositor whose Render Layers node reads a view layer with Use for Rendering off gives an
  empty picture through a node that looks straight; `compositor_alters` now asks that the layer
  it reads renders.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import probe_local, assert_refused_as_expected, run_bpy, write_rule_task
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
bpy.ops.wm.save_as_mainfile(filepath=str(out / "start.blend"))

bpy.ops.wm.set_working_color_space(working_space="Linear Rec.2020", convert_colors=False)
bpy.ops.wm.save_as_mainfile(filepath=str(out / "rec2020.blend"))


def composite(name, layer_renders):
    bpy.ops.wm.open_mainfile(filepath=str(out / "start.blend"))
    scene = bpy.context.scene
    hidden = scene.view_layers.new("Hidden")
    hidden.use = layer_renders
    tree = bpy.data.node_groups.new("Compositing", "CompositorNodeTree")
    tree.interface.new_socket("Image", in_out="OUTPUT", socket_type="NodeSocketColor")
    layers = tree.nodes.new("CompositorNodeRLayers")
    layers.layer = "Hidden"
    tree.links.new(layers.outputs["Image"], tree.nodes.new("NodeGroupOutput").inputs[0])
    scene.compositing_node_group = tree
    scene.render.use_compositing = True
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


composite("compositor_reads_hidden_layer", False)
composite("compositor_reads_rendered_layer", True)
'''

SNAPSHOT_CASES = {"KEPT": ("scene_unchanged", {"frame": 1})}
COMPOSITOR_CASES = {"RENDER": ("render_overrides", {"compositor": False})}
EXPECTED = {
    ("kept", "start"): {},
    ("kept", "rec2020"): {"KEPT": "working_space"},
    ("compositor", "start"): {},
    ("compositor", "compositor_reads_rendered_layer"): {},
    ("compositor", "compositor_reads_hidden_layer"): {"RENDER": "compositor"},
    # a from-scratch task keeps no snapshot: render_overrides holds the working space
    ("compositor", "rec2020"): {"RENDER": "working_space is 'Linear Rec.2020', not 'Linear Rec.709'"},
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam13-colour")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    kept = write_rule_task(tmp / "kept", SNAPSHOT_CASES, "redteam13-kept")
    run_bpy(bpy_procs.VERIFIERS / "scene_snapshot.py", "--blend", tmp / "start.blend",
            "--out", tmp / "kept" / "start_scene.json")
    compositor = write_rule_task(tmp / "compositor", COMPOSITOR_CASES, "redteam13-compositor",
                                 start_mode="from_scratch")
    return {"tmp": tmp, "kept": kept, "compositor": compositor}


@pytest.mark.parametrize(("task", "delivery"), sorted(EXPECTED))
def test_colour_space_and_compositor_layer_are_graded(scenes, task, delivery):
    task_path, rubric = scenes[task]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task_path, rubric,
                                   scenes["tmp"] / f"report-{task}-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[(task, delivery)], delivery)


def test_the_new_operators_are_listed():
    assert {"working_space_switched", "compositor_hidden_layer"} <= set(OPERATOR_NAMES)
