"""The ``attached_to`` probe (verifiers/probes_animation.py) in real Blender: a parent chain that
rotates (Arm yaws, its child Hand -- scaled 2x -- pitches) holding a Tip empty, a box that rides
with the Hand through a Child Of constraint for frames 8-16 only, a helper empty re-parented to
that box (the faked carry), an empty outside the chain, an empty that wobbles 4 mm on the Hand
and one on a link that stretches; graded by one probe run, every case's score checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.probe_cases import probe_local, write_rule_task
from tests.bpy_forks import run_bpy_script


pytestmark = pytest.mark.blender

ROOT = Path(__file__).resolve().parents[2]
FRAMES = 24

SCENE = '''
import math, sys
import bpy
out = sys.argv[1]
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o)
scene = bpy.context.scene
scene.frame_start, scene.frame_end = 1, 24


def cube(name, size=0.1):
    mesh = bpy.data.meshes.new(name)
    h = size / 2
    verts = [(x, y, z) for x in (-h, h) for y in (-h, h) for z in (-h, h)]
    mesh.from_pydata(verts, [], [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)])
    o = bpy.data.objects.new(name, mesh)
    scene.collection.objects.link(o)
    return o


def empty(name, parent=None, location=(0.0, 0.0, 0.0)):
    o = bpy.data.objects.new(name, None)
    scene.collection.objects.link(o)
    o.parent, o.location = parent, location
    return o


def linear(obj):
    for fc in obj.animation_data.action.layers[0].strips[0].channelbag(obj.animation_data.action_slot).fcurves:
        for k in fc.keyframe_points:
            k.interpolation = "LINEAR"


arm = cube("Arm")                                  # yaws 10 degrees a frame about the world origin
arm.rotation_euler.z = 0.0
arm.keyframe_insert("rotation_euler", index=2, frame=1)
arm.rotation_euler.z = math.radians(230)
arm.keyframe_insert("rotation_euler", index=2, frame=24)
linear(arm)
hand = cube("Hand")                                # 1 m out on the arm, scaled 2x, pitches 0 -> 90 degrees
hand.parent, hand.location, hand.scale = arm, (1.0, 0.0, 0.0), (2.0, 2.0, 2.0)
hand.keyframe_insert("rotation_euler", index=1, frame=1)
hand.rotation_euler.y = math.radians(90)
hand.keyframe_insert("rotation_euler", index=1, frame=24)
linear(hand)
empty("Tip", hand, (0.0, 0.0, 0.2))               # 0.4 m from the hand's pivot in world space
empty("Loose", None, (3.0, 0.0, 0.0))             # not in the chain, never moves
wobble = empty("Wobble", hand)                     # on the hand, its own z 0 -> 2 mm -> 0 (4 mm in world)
wobble.keyframe_insert("location", index=2, frame=1)
wobble.location.z = 0.002
wobble.keyframe_insert("location", index=2, frame=12)
wobble.location.z = 0.0
wobble.keyframe_insert("location", index=2, frame=24)
linear(wobble)

box = cube("Box")                                  # rides with the hand through Child Of, frames 8-16
box.location = (0.0, 2.0, 0.0)
carry = box.constraints.new("CHILD_OF")
carry.name, carry.target = "Carry", hand
scene.frame_set(8)
carry.inverse_matrix = hand.matrix_world.inverted()
for frame, influence in ((1, 0.0), (8, 1.0), (17, 0.0)):
    carry.influence = influence
    box.keyframe_insert('constraints["Carry"].influence', frame=frame)
for fc in box.animation_data.action.layers[0].strips[0].channelbag(box.animation_data.action_slot).fcurves:
    for k in fc.keyframe_points:
        k.interpolation = "CONSTANT"
empty("FakeTip", box, (0.0, 0.0, 0.5))            # a helper re-parented to the box: the faked carry
stretch = cube("Stretch")                          # a link that stretches 1x -> 2x instead of turning
stretch.location = (-2.0, 0.0, 0.0)
stretch.keyframe_insert("scale", frame=1)
stretch.scale = (2.0, 2.0, 2.0)
stretch.keyframe_insert("scale", frame=24)
linear(stretch)
empty("OnStretch", stretch, (0.0, 0.0, 0.5))      # 0.5 m -> 1 m out: the stretch carries it away
scene.frame_set(1)
bpy.ops.wm.save_as_mainfile(filepath=out)
'''

ALL = {"frame_start": 1, "frame_end": FRAMES}

# (method params, expected score, expected longest run or None)
CASES = [
    ({"object": "Tip", "to": "Hand", **ALL}, 1.0, FRAMES),
    # the pivot of a rotating child stays on its parent link: only the origin is followed
    ({"object": "Hand", "to": "Arm", **ALL, "tolerance": 0.001}, 1.0, FRAMES),
    # the tip is 0.4 m off the hand's pivot: as the hand pitches it moves against the arm
    ({"object": "Tip", "to": "Arm", **ALL}, 1 / FRAMES, 1),
    ({"object": "Loose", "to": "Hand", **ALL}, 1 / FRAMES, 1),
    ({"object": "Loose", "to": "Hand", **ALL, "tolerance": 10.0}, 1.0, FRAMES),
    # carried through the constraint for frames 8..16: 9 frames
    ({"object": "Box", "to": "Hand", **ALL, "min_frames": 9}, 1.0, 9),
    ({"object": "Box", "to": "Hand", **ALL, "min_frames": 12}, 0.75, 9),
    ({"object": "Box", "to": "Hand", "frame_start": 8, "frame_end": 16}, 1.0, 9),
    # the helper re-parented to the box follows the box, not the hand
    ({"object": "FakeTip", "to": "Hand", **ALL}, 9 / FRAMES, 9),
    ({"object": "FakeTip", "to": "Box", **ALL}, 1.0, FRAMES),
    # frame_step is ignored: a render shows every frame, so every frame is graded
    ({"object": "Tip", "to": "Hand", **ALL, "frame_step": 3}, 1.0, FRAMES),
    # tolerance in world metres: 2 mm on a 2x-scaled hand is 4 mm
    ({"object": "Wobble", "to": "Hand", **ALL, "tolerance": 0.005}, 1.0, FRAMES),
    ({"object": "Wobble", "to": "Hand", **ALL, "tolerance": 0.001}, 8 / FRAMES, 8),
    ({"object": "Wobble", "to": "Hand", **ALL, "tolerance": 0.001, "min_frames": 0}, 1.0, 8),
    # a change of scale is no rigid carry: the child's pivot drifts 2 cm a frame
    ({"object": "OnStretch", "to": "Stretch", **ALL}, 1 / FRAMES, 1),
    ({"object": "OnStretch", "to": "Stretch", **ALL, "tolerance": 0.6}, 1.0, FRAMES),
]


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("attached")
    script, blend = tmp / "scene.py", tmp / "attached.blend"
    script.write_text(SCENE)
    proc = run_bpy_script(str(script), str(blend))
    assert proc.returncode == 0, proc.stderr[-3000:]
    write_rule_task(tmp, {f"A{i:02d}": ("attached_to", p) for i, (p, _, _) in enumerate(CASES)}, "probe-attached-to")
    report = probe_local(blend, tmp / "task.json", tmp / "rubric.json", tmp / "report.json")
    return {c["id"]: c for c in report["criteria"]}


@pytest.mark.parametrize(("index", "params", "want", "run"), [(i, p, w, r) for i, (p, w, r) in enumerate(CASES)],
                         ids=[f"A{i:02d}-{p['object']}-to-{p['to']}" for i, (p, _, _) in enumerate(CASES)])
def test_case_scores(graded, index, params, want, run):
    entry = graded[f"A{index:02d}"]
    assert entry["method"] == "attached_to"
    assert entry["score"] == pytest.approx(want, abs=1e-6), entry
    assert entry["passed"] is (want == 1.0), entry
    assert entry["measured"]["longest_run"] == run, entry


def test_there_are_passing_and_failing_cases():
    scores = [w for _, w, _ in CASES]
    assert 1.0 in scores and min(scores) < 1.0


def test_evidence_names_the_run_and_where_it_comes_loose(graded):
    box = graded["A06"]
    assert box["measured"]["run_frames"] == [8, 16] and box["measured"]["frames_sampled"] == FRAMES
    assert box["expected"] == {"min_frames": 12, "tolerance": 0.005}
    assert box["evidence"]["first_loose_frame"] == 2  # the box waits on its own while the hand moves
    fake = graded["A08"]
    assert fake["measured"]["run_frames"] == [8, 16]
    tip = graded["A00"]
    assert tip["evidence"]["first_loose_frame"] is None and tip["evidence"]["drift_from_first_frame"] < 1e-5
    assert graded["A10"]["measured"]["run_frames"] == [1, FRAMES] and graded["A10"]["measured"]["frames_sampled"] == FRAMES
    wobble = graded["A11"]["evidence"]["drift_from_first_frame"]
    assert wobble == pytest.approx(0.004, abs=1e-5)  # world metres: the hand's 2x scale counts
