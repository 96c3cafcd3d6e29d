"""Red team 5 (issue 33), in real Blender: a carried box that turns in the grip, or a resting one
that slides across its table by itself (robot-carry's REQ-ALWAYS-SUPPORTED).

A from-scratch scene: two tables, a carrier empty (`Tip`) that swings a quarter turn about the
world Z axis between them, and a box baked to rest on `TableA`, hang rigidly under `Tip` (turning
with it) and rest on `TableB`.  Deliveries change only the box: it spins under the tip, slides
over `TableA` before the pickup, or creeps in the grip a little every frame (each step under the
tolerance, the sum well over it).  `supported_throughout` with ``slip_tolerance`` refuses each;
without it (the default, ``SUP_OFF``) every one passes, as it did before.  The honest carry, whose
box turns a quarter turn with the tip, passes both.
Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import local_probe, probe_local, assert_refused_as_expected, run_bpy, write_rule_task

pytestmark = pytest.mark.blender

MAKE = r'''
import math
import sys
from pathlib import Path

import bpy
from mathutils import Matrix, Vector

out = Path(sys.argv[-1])
BOX, TOP = 0.2, 0.75
PICK, PLACE, LAST = 12, 40, 50


def cube(name, size, location):
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=location)
    obj = bpy.context.active_object
    obj.name = name
    obj.scale = size
    bpy.ops.object.transform_apply(scale=True)
    return obj


def tip_height(f):
    """The tip's height over the box top: down to it at PICK, up, down again at PLACE, up."""
    keys = [(1, 0.3), (PICK, 0.0), (PICK + 2, 0.0), (20, 0.3), (34, 0.3), (PLACE, 0.0), (PLACE + 2, 0.0), (LAST, 0.3)]
    for (f0, h0), (f1, h1) in zip(keys, keys[1:]):
        if f0 <= f <= f1:
            return h0 + (h1 - h0) * (f - f0) / (f1 - f0)


def build(name, box_world):
    """The scene with the box keyed at box_world(frame, tip_world, base) at every frame."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, LAST
    cube("TableA", (0.6, 0.6, TOP), (1.0, 0.0, TOP / 2))
    cube("TableB", (0.6, 0.6, TOP), (0.0, 1.0, TOP / 2))
    box = cube("Box", (BOX, BOX, BOX), (1.0, 0.0, TOP + BOX / 2))
    turn = bpy.data.objects.new("Turn", None)
    tip = bpy.data.objects.new("Tip", None)
    for o in (turn, tip):
        scene.collection.objects.link(o)
    tip.parent = turn
    tip.rotation_euler.x = math.pi  # pad facing down, as a gripper's would
    for f in range(1, LAST + 1):
        s = min(1.0, max(0.0, (f - 20) / 14))
        turn.rotation_euler.z = s * math.pi / 2
        turn.keyframe_insert("rotation_euler", index=2, frame=f)
        tip.location = (1.0, 0.0, TOP + BOX + tip_height(f))
        tip.keyframe_insert("location", frame=f)
    base = box.matrix_world.copy()
    worlds = {}
    for f in range(1, LAST + 1):
        scene.frame_set(f)
        worlds[f] = box_world(f, tip.matrix_world.copy(), base)
    for f, m in worlds.items():
        box.matrix_world = m
        box.keyframe_insert("location", frame=f)
        box.keyframe_insert("rotation_euler", frame=f)
    scene.frame_set(1)
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


HOLD = {}


def honest(f, tip_world, base, spin=0.0, creep=0.0, slide=0.0):
    """Rest on A, hang rigidly under the tip from PICK to PLACE, rest where it was put."""
    if f == PICK:
        HOLD["offset"] = tip_world.inverted() @ base
    if f < PICK:
        shift = slide * math.sin(math.pi * (f - 1) / (PICK - 2))  # out and back before the tip arrives
        return Matrix.Translation((-shift, 0.0, 0.0)) @ base
    if f <= PLACE:
        turn = Matrix.Rotation(spin * max(0, f - 24), 4, "Z")  # about the pad's axis, after the lift
        slip = Matrix.Translation((creep * (f - PICK), 0.0, 0.0))
        HOLD["last"] = tip_world @ slip @ turn @ HOLD["offset"]
        return HOLD["last"]
    return HOLD["last"]


build("good", honest)
build("spin", lambda f, t, b: honest(f, t, b, spin=0.3))
build("slide", lambda f, t, b: honest(f, t, b, slide=0.12))
build("creep", lambda f, t, b: honest(f, t, b, creep=0.0008))
'''

SUPPORT = {"object": "Box", "supports": ["TableA", "TableB"], "carrier": "Tip", "anchor": "top_center",
           "rest_tolerance": 0.01, "carrier_tolerance": 0.03, "max_step": 0.25, "min_carried_frames": 5,
           "frame_start": 1, "frame_end": 50}
CASES = {
    "SUP": ("supported_throughout", {**SUPPORT, "slip_tolerance": 0.002}),
    "SUP_OFF": ("supported_throughout", SUPPORT),
}
SLIPPED = "slid or turned on its support or in the grip"
# delivery -> {criterion that must refuse it: what its detail names} (the others pass)
EXPECTED = {
    "good": {},
    "spin": {"SUP": SLIPPED},
    "slide": {"SUP": SLIPPED},
    "creep": {"SUP": SLIPPED},
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam5-carry")
    script = tmp / "make.py"
    script.write_text(MAKE, encoding="utf-8")
    run_bpy(script, tmp)
    task, rubric = write_rule_task(tmp / "task", CASES, "redteam5-carry", start_mode="from_scratch")
    return {"tmp": tmp, "task": task, "rubric": rubric}


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_a_box_that_slips_is_refused_and_a_rigid_carry_passes(scenes, delivery):
    out = scenes["tmp"] / f"report-{delivery}.json"
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"], out)
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)
    sup = next(c for c in report["criteria"] if c["id"] == "SUP")
    assert sup["measured"]["frames_carried"] >= 5, sup["detail"]  # the carry itself is seen
    if delivery == "good":
        assert sup["measured"]["frames_slipped"] == 0 and sup["evidence"]["max_drift_kept"] < 1e-4, sup


# --- the operators (verifiers/mutations.py, "red team 5: carry") --------------------------------

CARRY_OPERATORS = ("spin_while_carried", "slide_while_resting")


def test_carry_operators_apply_and_only_the_slip_measure_kills_them(scenes):
    with local_probe() as probe:
        rows = probe.mutate(scenes["tmp"] / "good.blend", scenes["task"], scenes["rubric"],
                            operators=list(CARRY_OPERATORS))
    assert sorted(row["operator"] for row in rows) == sorted(CARRY_OPERATORS)
    for row in rows:
        assert row["applicable"] and row["error"] is None, row
        refused = {c["id"] for c in row["criteria"] if not c["passed"]}
        assert refused == {"SUP"}, (row["operator"], row["criteria"])


def test_carry_operators_refuse_a_task_without_a_carrier(scenes):
    task, rubric = write_rule_task(scenes["tmp"] / "plain", {"RANGE": ("frame_range", {"frame_start": 1,
                                                                                         "frame_end": 50})},
                                   "redteam5-carry-plain", start_mode="from_scratch")
    with local_probe() as probe:
        rows = probe.mutate(scenes["tmp"] / "good.blend", task, rubric, operators=list(CARRY_OPERATORS))
    for row in rows:
        assert not row["applicable"] and "no supported_throughout criterion" in row["why"], row
