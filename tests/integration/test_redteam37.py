"""Red team 37 (issue 33), in real Blender: a shudder under the step-change limit.

robot-carry passed with its turntable nudged +-0.016 rad on alternate frames through the swing:
the arm and the box shook sideways twelve times a second, every point's change of step just
under the 10 cm ``moves_smoothly`` allowed; and with it swung +-0.085 rad at 3 Hz (the box +-11 cm,
turning back every four frames).  ``max_flicks``: a point's change of step, over ``FLICK_MIN``
(2 cm), turns back against the last such change within ``SHAKE_SPAN`` (4) frames at most that
many times in a row.  A smooth move, a linear one that starts and stops dead (within the
step-change limit), a single knock and one slow sway pass; a shudder and a shake do not.

asset-hygiene passed with a vertex group added to every kept prop, each vertex weighted: per-vertex
mesh data that ``mesh.attributes`` does not list.  The attribute digest of a kept mesh takes its
vertex groups' weights now (``SNAPSHOT_VERSION`` 16); a group with no weight on any vertex holds no
data and changes nothing.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import BPY_SCENE_HELPERS, assert_refused_as_expected, probe_local, run_bpy, write_rule_task
from verifiers import bpy_procs

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = BPY_SCENE_HELPERS + r'''
import math


def mover(name, nudge=None, interpolation="BEZIER"):
    """"Mover", a 20 cm box keyed from x 0 at frame 1 to x 2 at frame 40; ``nudge(frame)`` adds
    to x on the frames it names (keyed there)."""
    scene = fresh()
    scene.frame_start, scene.frame_end = 1, 40
    obj = box("Mover", (0.2, 0.2, 0.2), (0.0, 0.0, 0.1))
    for frame, x in ((1, 0.0), (40, 2.0)):
        obj.location.x = x
        obj.keyframe_insert("location", index=0, frame=frame)
    curve = obj.animation_data.action.layers[0].strips[0].channelbag(obj.animation_data.action_slot).fcurves[0]
    for key in curve.keyframe_points:
        key.interpolation = interpolation
    if nudge:
        values = {f: curve.evaluate(f) + nudge(f) for f in range(1, 41) if nudge(f)}
        for f, value in values.items():
            curve.keyframe_points.insert(f, value, options={"FAST"}).interpolation = "LINEAR"
        curve.update()
    save(name)


def vertex_group(scene, obj):
    """red team 37: a weight layer added to the kept prop"""
    group = obj.vertex_groups.new(name="Col")
    group.add(list(range(len(obj.data.vertices))), 1.0, "REPLACE")


def empty_vertex_group(scene, obj):
    obj.vertex_groups.new(name="Unused")  # a name, no weight on any vertex: no data


prop("prop")
prop("prop_vertex_group", vertex_group)
prop("prop_empty_vertex_group", empty_vertex_group)
mover("smooth")
mover("linear", interpolation="LINEAR")  # 5.1 cm a frame from a standstill: within the 10 cm
mover("knock", lambda f: 0.03 if f == 20 else 0.0)  # one frame 3 cm off: turns back twice
mover("shudder", lambda f: (0.02 if f % 2 else -0.02) if 15 <= f <= 30 else 0.0)  # 8 cm changes, alternating
mover("shake", lambda f: 0.11 * math.sin(2 * math.pi * f / 8) if 8 <= f <= 32 else 0.0)  # 3 Hz, +-11 cm
mover("sway", lambda f: 0.05 * math.sin(2 * math.pi * (f - 4) / 32) if 4 <= f <= 36 else 0.0)  # one slow sway
'''

CASES = {"SMOOTH": ("moves_smoothly", {"objects": ["Mover"], "max_step": 0.25, "max_step_change": 0.1,
                                       "max_flicks": 2, "frame_start": 1, "frame_end": 40})}
KEPT = {"KEPT": ("scene_unchanged", {"frame": 1})}
KEPT_EXPECTED = {"prop_vertex_group": {"KEPT": "SM_Box (attributes)"}, "prop_empty_vertex_group": {}}
EXPECTED = {
    "smooth": {},
    "linear": {},
    "knock": {},
    "shudder": {"SMOOTH": "swung back and forth"},
    "shake": {"SMOOTH": "swung back and forth"},
    "sway": {},
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam37")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    task, rubric = write_rule_task(tmp / "task", CASES, "redteam37", start_mode="from_scratch")
    kept = write_rule_task(tmp / "kept", KEPT, "redteam37-kept", start_mode=None)
    run_bpy(bpy_procs.VERIFIERS / "scene_snapshot.py", "--blend", tmp / "prop.blend",
            "--out", tmp / "kept" / "start_scene.json")
    return {"tmp": tmp, "task": task, "rubric": rubric, "kept": kept}


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_a_shudder_under_the_step_change_limit_is_refused(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                         scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)
    flicks = report["criteria"][0]["measured"]["Mover"]["flicks_in_a_row"]
    assert (flicks > 2) is (delivery in ("shudder", "shake")), (delivery, flicks)


@pytest.mark.parametrize("delivery", sorted(KEPT_EXPECTED))
def test_a_vertex_group_added_to_a_kept_mesh_is_a_change(scenes, delivery):
    task, rubric = scenes["kept"]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task, rubric, scenes["tmp"] / f"report-kept-{delivery}.json")
    assert_refused_as_expected(report, KEPT_EXPECTED[delivery], delivery)
