"""Red team 29 (issue 33), in real Blender: an object resting on an edge, what the opened file's
modes and overlays draw, and surface samples no file can choose.

* robot-carry passed with the box left unheld on one edge, tipped 9.5 degrees, for 38 frames:
  ``supported_throughout`` counted a box over the table within the rest tolerance as resting;
  an unheld object rests now only sitting flat (``contact_share``, as ``rests_on_face``).
* asset-hygiene passed with the bin saved in Edit Mode and every 3D view fading inactive geometry
  at full strength, every prop in Edit Mode under the Retopology overlay, and every 3D view
  turned into a Text Editor (an area keeps the editors it showed before in its spaces: the
  opened views now read the area's shown editor only).
* crate-texture passed with the texture masked off everywhere but where the grader's samples can
  land for one window of the file-drawn offset, the file re-saved until its digest hit the
  window: each triangle takes its own offset now, mixed from the digest and its index
  (``probe_core.sample_shifts``).

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import json

import pytest

from tests.probe_cases import BPY_SCENE_HELPERS, assert_refused_as_expected, probe_local, run_bpy, write_rule_task

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = BPY_SCENE_HELPERS + r'''
import math

from mathutils import Matrix, Vector


def three_frames():
    scene = fresh()
    scene.frame_start, scene.frame_end = 1, 3
    return scene


def resting(name, tilt_deg=0.0, held=False):
    """A 0.25 m box on a table top (z 0.75), tipped ``tilt_deg`` about its bottom edge at
    y = -0.125 (that edge on the table); an empty Tip 1 m above it, or at its top centre (held)."""
    scene = three_frames()
    box("Table", (1.0, 1.0, 0.75), (0.0, 0.0, 0.375))
    crate = box("Box", (0.25, 0.25, 0.25), (0.0, 0.0, 0.875))
    bpy.context.view_layer.update()  # its matrix_world from the location just set
    pivot = Matrix.Translation((0.0, -0.125, 0.75))
    crate.matrix_world = pivot @ Matrix.Rotation(math.radians(tilt_deg), 4, "X") @ pivot.inverted() @ crate.matrix_world
    tip = bpy.data.objects.new("Tip", None)
    scene.collection.objects.link(tip)
    bpy.context.view_layer.update()
    corners = [crate.matrix_world @ Vector(c) for c in crate.bound_box]
    top = max(c.z for c in corners)
    middle = sum((c for c in corners), Vector()) / 8
    tip.location = (middle.x, middle.y, top) if held else (0.0, 0.0, 2.0)
    save(name)


def opened(name, mode_of=None, fade=None, retopology=False, no_view=False):
    """SM_Box and Other; ``mode_of`` put in Edit Mode; every 3D view fading inactive geometry at
    ``fade``, drawing the Retopology overlay, or turned into a Text Editor."""
    three_frames()
    box("SM_Box", (0.4, 0.4, 0.4), (0.0, 0.0, 0.2))
    box("Other", (0.2, 0.2, 0.2), (1.0, 0.0, 0.1))
    if mode_of is not None:
        obj = bpy.data.objects[mode_of]
        for o in bpy.context.view_layer.objects:
            o.select_set(o is obj)
        bpy.context.view_layer.objects.active = obj
        bpy.ops.object.mode_set(mode="EDIT")
    for screen in bpy.data.screens:
        for area in screen.areas:
            if area.type != "VIEW_3D":
                continue
            if no_view:
                area.type = "TEXT_EDITOR"
                continue
            overlay = area.spaces.active.overlay
            overlay.show_overlays = True
            if fade is not None:
                overlay.show_fade_inactive, overlay.fade_inactive_alpha = True, fade
            overlay.show_retopology = retopology
    save(name)


resting("flat")
resting("tipped", 10.0)
resting("tipped_held", 10.0, held=True)
opened("views")
opened("other_in_edit_mode", mode_of="Other")
opened("other_in_edit_mode_faded", mode_of="Other", fade=1.0)
opened("other_in_edit_mode_faded_lightly", mode_of="Other", fade=0.3)
opened("box_in_edit_mode_retopology", mode_of="SM_Box", retopology=True)
opened("no_3d_view", no_view=True)
'''

SAMPLES = r'''
import json
import sys
from pathlib import Path

sys.path.insert(0, sys.argv[-2])
import numpy as np

import probe_core
import probes_surface

out = {}
for name, digest in (("a", "0123456789abcdef" * 4), ("b", "fedcba9876543210" * 4)):
    probe_core.shift_samples(digest)
    tri = np.repeat(np.arange(4), 3)
    su, sv = probe_core.sample_shifts(tri)
    u, v = probes_surface._tri_points(tri, np.tile(np.arange(3), 4).astype(np.float64))
    out[name] = {"su": su.tolist(), "sv": sv.tolist(), "u": u.tolist(), "v": v.tolist()}
probe_core.shift_samples("0123456789abcdef" * 4)
out["again"] = probe_core.sample_shifts(np.arange(4))[0].tolist()
Path(sys.argv[-1]).write_text(json.dumps(out))
'''

CASES = {
    "rest": {"REST": ("supported_throughout", {"object": "Box", "supports": ["Table"], "carrier": "Tip",
                                               "rest_tolerance": 0.01, "carrier_tolerance": 0.03,
                                               "frame_start": 1, "frame_end": 3})},
    "size": {"SIZE": ("dimensions", {"object": "SM_Box", "expected": [0.4, 0.4, 0.4], "tolerance": 0.005})},
}
EXPECTED = {
    ("rest", "flat"): {},
    ("rest", "tipped"): {"REST": "standing on an edge or a corner where nothing holds it"},
    ("rest", "tipped_held"): {},  # the gripper may roll it on an edge while it holds it
    ("size", "views"): {},
    ("size", "other_in_edit_mode"): {},
    ("size", "other_in_edit_mode_faded"): {"SIZE": "faded into the background"},
    ("size", "other_in_edit_mode_faded_lightly"): {},
    ("size", "box_in_edit_mode_retopology"): {"SIZE": "Retopology overlay"},
    ("size", "no_3d_view"): {"SIZE": "opens on no 3D view"},
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam29")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    tasks = {task: write_rule_task(tmp / task, cases, f"redteam29-{task}", start_mode="from_scratch")
             for task, cases in CASES.items()}
    return {"tmp": tmp, **tasks}


@pytest.mark.parametrize(("task", "delivery"), sorted(EXPECTED))
def test_edges_modes_overlays_and_missing_views_are_measured(scenes, task, delivery):
    task_path, rubric = scenes[task]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task_path, rubric,
                         scenes["tmp"] / f"report-{task}-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[(task, delivery)], delivery)


def test_each_triangle_takes_its_own_offset_from_the_digest(tmp_path):
    from verifiers import bpy_procs

    (tmp_path / "samples.py").write_text(SAMPLES, encoding="utf-8")
    run_bpy(tmp_path / "samples.py", bpy_procs.VERIFIERS, tmp_path / "out.json")
    got = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    a, b = got["a"], got["b"]
    per_triangle = a["su"][::3]
    assert len(set(per_triangle)) == 4 and all(0.0 <= x < 1.0 for x in a["su"] + a["sv"])  # four triangles, four
    assert a["su"][:3] == [per_triangle[0]] * 3  # one offset for all of a triangle's samples
    assert got["again"] == per_triangle  # the same digest, the same offsets
    assert b["su"][::3] != per_triangle  # another digest, others
    r2 = 1.32471795724474602596
    for i in range(12):  # an R2 sequence in each triangle, shifted by the triangle's offset, folded
        k = i % 3
        u, v = (0.5 + a["su"][i] + k / r2) % 1.0, (0.5 + a["sv"][i] + k / r2 ** 2) % 1.0
        if u + v > 1:
            u, v = 1 - u, 1 - v
        assert a["u"][i] == pytest.approx(u) and a["v"][i] == pytest.approx(v)
