"""Red team 33 (issue 33), in real Blender: what a kept mesh carries besides its shape, and how
the opened file draws it.

* asset-hygiene passed with a colour attribute in another prop's colour added to each prop and
  the file's views coloured by attribute (and with the workbench saved in Vertex Paint): the mesh
  comparison read positions, topology, normals, UV maps and material indices only.  The snapshot
  holds every other attribute now (``attributes``: name, domain, type, values; which colour
  attribute is active and renders), and UV seams with the UV maps.
* a prop saved in Weight Paint is drawn in weights (``viewport.paint_mode``); a view in Material
  Preview with the scene's lights and world off and its studio light at 0 draws every surface
  black (``_view_unlit``).
* crate-texture passed with a second UV map, every face over the whole tile, made the active map
  (Texture Paint paints through it): ``uv_map`` ``active``.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import (
    BPY_SCENE_HELPERS, assert_operators_killed, assert_refused_as_expected, local_probe, probe_local, run_bpy,
    write_rule_task,
)
from verifiers import bpy_procs
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = BPY_SCENE_HELPERS + r'''
def colour_attribute(scene, obj):
    """red team 33: a colour attribute in another prop's colour, the views coloured by it"""
    attr = obj.data.color_attributes.new("Col", "FLOAT_COLOR", "POINT")
    attr.data.foreach_set("color", [1.0, 0.5, 0.0, 1.0] * len(attr.data))
    for space in views():
        space.shading.type, space.shading.color_type = "SOLID", "VERTEX"


def weight_paint(scene, obj):
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="WEIGHT_PAINT")


def unlit_preview(scene, obj):
    """red team 33: Material Preview with no scene light or world and the studio light at 0"""
    for space in views():
        space.shading.type = "MATERIAL"
        space.shading.use_scene_lights, space.shading.use_scene_world = False, False
        space.shading.studiolight_intensity = 0.0


def lit_preview(scene, obj):
    for space in views():
        space.shading.type = "MATERIAL"


def seams(scene, obj):
    obj.data.edges[0].use_seam = True


def second_map_active(scene, obj):
    """red team 33: a second UV map made active, CrateUV still the one that renders"""
    obj.data.uv_layers.new(name="UVMap")
    obj.data.uv_layers.active = obj.data.uv_layers["UVMap"]
    obj.data.uv_layers["CrateUV"].active_render = True


prop("prop")
for extra in (colour_attribute, weight_paint, unlit_preview, lit_preview, seams, second_map_active):
    prop(f"prop_{extra.__name__}", extra)
'''

CASES = {
    "kept": {"KEPT": ("scene_unchanged", {"frame": 1})},
    "kept_uv": {"KEPT": ("scene_unchanged", {"frame": 1, "allow_changed": {"SM_Box": ["uv"]}})},
    "uv": {"UV": ("uv_map", {"object": "SM_Box", "uv_map": "CrateUV", "render_active": True, "active": True})},
}
EXPECTED = {
    ("kept", "prop_colour_attribute"): {"KEPT": "SM_Box (attributes)"},
    ("kept", "prop_weight_paint"): {"KEPT": "SM_Box (viewport)"},
    ("kept", "prop_unlit_preview"): {"KEPT": "SM_Box (viewport)"},
    ("kept", "prop_lit_preview"): {},  # Material Preview lit by its studio light shows the box
    ("kept", "prop_seams"): {"KEPT": "SM_Box (uv)"},  # seams are part of the UV layout
    ("kept_uv", "prop_seams"): {},
    ("uv", "prop"): {},
    ("uv", "prop_second_map_active"): {"UV": "(render-active and active)"},
}
NEW_OPERATORS = ("mesh_colour_attribute_added", "active_uv_map_stacked")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam33")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    tasks = {task: write_rule_task(tmp / task, cases, f"redteam33-{task}",
                                   start_mode=None if task.startswith("kept") else "from_scratch")
             for task, cases in CASES.items()}
    for task in ("kept", "kept_uv"):
        run_bpy(bpy_procs.VERIFIERS / "scene_snapshot.py", "--blend", tmp / "prop.blend",
                "--out", tmp / task / "start_scene.json")
    return {"tmp": tmp, **tasks}


@pytest.mark.parametrize(("task", "delivery"), sorted(EXPECTED))
def test_attributes_paint_modes_an_unlit_view_and_the_active_uv_map_are_measured(scenes, task, delivery):
    task_path, rubric = scenes[task]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task_path, rubric,
                         scenes["tmp"] / f"report-{task}-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[(task, delivery)], delivery)


def test_the_new_operators_apply_and_are_killed(scenes):
    for task, operator, killed_by in (("kept", "mesh_colour_attribute_added", {"KEPT"}),
                                      ("uv", "active_uv_map_stacked", {"UV"})):
        task_path, rubric = scenes[task]
        with local_probe() as probe:
            rows = probe.mutate(scenes["tmp"] / "prop.blend", task_path, rubric, None, operators=[operator])
        assert_operators_killed(rows, {operator: killed_by})


def test_the_new_operators_are_listed():
    assert set(NEW_OPERATORS) <= set(OPERATOR_NAMES)
