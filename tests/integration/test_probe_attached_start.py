"""``attached_to`` with ``as_in_start`` in real Blender: a joint must stay where the start scene
holds it on its link, not only ride rigidly with it.  A two-link arm turns over 10 frames; one
delivery keeps it as supplied, one makes the upper link longer (the elbow slid 30 cm out along it)
-- a rigid carry all the same, so the run-relative check passes it and the start-relative check
does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.probe_cases import probe_local, write_rule_task
from tests.bpy_forks import run_bpy_script


pytestmark = pytest.mark.blender

VERIFIERS = Path(__file__).resolve().parents[2] / "verifiers"

SCENE = r'''
import sys
import bpy
out, stretch = sys.argv[1], float(sys.argv[2])
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o)
scene = bpy.context.scene
scene.frame_start, scene.frame_end = 1, 10
upper = bpy.data.objects.new("Upper", None)
scene.collection.objects.link(upper)
elbow = bpy.data.objects.new("Elbow", None)
scene.collection.objects.link(elbow)
elbow.parent = upper
elbow.location = (1.0 + stretch, 0.0, 0.0)  # the link's length
upper.rotation_euler.z = 0.0
upper.keyframe_insert("rotation_euler", index=2, frame=1)
upper.rotation_euler.z = 1.2
upper.keyframe_insert("rotation_euler", index=2, frame=10)
scene.frame_set(1)
bpy.ops.wm.save_as_mainfile(filepath=out)
'''

ATTACHED = {"object": "Elbow", "to": "Upper", "frame_start": 1, "frame_end": 10, "tolerance": 0.005}


def build(tmp: Path, name: str, stretch: float) -> Path:
    script, blend = tmp / "scene.py", tmp / f"{name}.blend"
    script.write_text(SCENE)
    proc = run_bpy_script(str(script), str(blend), str(stretch))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return blend


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("attached-start")
    start = build(tmp, "start", 0.0)
    task = tmp / "task"
    write_rule_task(task, {"A1": ("attached_to", ATTACHED),
                           "A2": ("attached_to", {**ATTACHED, "as_in_start": True})}, "attached-start",
                    start_mode="continue")
    proc = run_bpy_script(str(VERIFIERS / "scene_snapshot.py"), "--blend", str(start),
                           "--out", str(task / "start_scene.json"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = {}
    for name, stretch in (("kept", 0.0), ("stretched", 0.3)):
        report = probe_local(build(tmp, name, stretch), task / "task.json", task / "rubric.json",
                             tmp / f"{name}.json")
        out[name] = {c["id"]: c for c in report["criteria"]}
    return out


def test_the_arm_as_supplied_passes_both(graded):
    assert graded["kept"]["A1"]["passed"] and graded["kept"]["A2"]["passed"], graded["kept"]


def test_a_longer_link_rides_rigidly_but_is_not_the_start_scene_s_machine(graded):
    stretched = graded["stretched"]
    assert stretched["A1"]["passed"], stretched["A1"]  # rigid: the run-relative check cannot see it
    assert not stretched["A2"]["passed"] and stretched["A2"]["score"] == 0.0, stretched["A2"]
    assert stretched["A2"]["evidence"]["off_start_frames"][0] == 1
    assert "not where the start scene holds it" in stretched["A2"]["detail"]
