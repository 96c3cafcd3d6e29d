"""Red team 8 (issue 33), in real Blender: a joint that turns about another axis than its own
(robot-carry's REQ-ARM-INTACT).

A jointed machine: `Base`, a `Turn` table on it that turns about Z, an `Upper` link on the table
hinged about its own Y, and a `Tilt` link on `Base` set tilted and turned about the base's Z (its
hinge axis is the parent's Z, not its own).  The red team's trick keeps every pivot on its link:
the table does not turn and the `Upper` hinge swivels about the vertical instead, the way a ball
joint would -- by keys, through a driver, or through an armature's bone (Child Of).  A link bent
off its hinge by a constant delta rotation turns about its axis from frame to frame, but is not the
start scene's joint.  `joint_axes` measures each link's evaluated rotation relative to its parent's
and refuses every one; the honest arm, keyed or rigged through a bone, passes.  With ``space:
parent`` the tilted link's hinge is read in the parent's axes (it passes); in its own (the
default) the same turn is off its axis.  The operator `joint_off_axis` (verifiers/mutations.py)
bends a joint's link the same way and only the start-scene check kills it.
Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.probe_cases import local_probe, probe_local, assert_operators_killed, assert_refused_as_expected, run_bpy, write_rule_task
from verifiers.mutation_testing import OPERATOR_NAMES
from tests.bpy_forks import run_bpy_script

pytestmark = [pytest.mark.blender, pytest.mark.timeout(600)]

VERIFIERS = Path(__file__).resolve().parents[2] / "verifiers"

MAKE = r'''
import math
import sys
from pathlib import Path

import bpy
from mathutils import Matrix

out = Path(sys.argv[-1])
LAST = 20


def link(name, size, location, parent=None):
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=location)
    obj = bpy.context.active_object
    obj.name = name
    obj.scale = size
    bpy.ops.object.transform_apply(scale=True)
    if parent is not None:
        obj.parent = parent
        obj.matrix_parent_inverse = parent.matrix_world.inverted()
    return obj


def build():
    """The machine at rest: Base, Turn on it (pivot z 0.4), Upper on Turn (pivot z 0.5), Tilt on
    Base (pivot x 1, tilted 0.5 rad about X)."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, LAST
    base = link("Base", (0.4, 0.4, 0.4), (0.0, 0.0, 0.2))
    turn = link("Turn", (0.5, 0.5, 0.1), (0.0, 0.0, 0.4), base)
    upper = link("Upper", (0.1, 0.1, 0.9), (0.0, 0.0, 0.5), turn)
    upper.data.transform(Matrix.Translation((0.0, 0.0, 0.45)))  # the link stands on its pivot
    tilt = link("Tilt", (0.1, 0.1, 0.5), (1.0, 0.0, 0.2), base)
    tilt.rotation_euler.x = 0.5
    return scene, base, turn, upper, tilt


def save(name):
    bpy.context.scene.frame_set(1)
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


def key(obj, index, values):
    """Key rotation_euler[index] at every frame to values(frame)."""
    for f in range(1, LAST + 1):
        obj.rotation_euler[index] = values(f)
        obj.keyframe_insert("rotation_euler", index=index, frame=f)


def s(f):
    return (f - 1) / (LAST - 1)


def arm(turn, upper, tilt, swing=True):
    """The tilted link turns about Base's Z; the table swings a quarter turn (unless not), the
    shoulder lifts the upper link 0.6 rad about its Y."""
    key(tilt, 2, lambda f: 1.2 * s(f))
    key(turn, 2, lambda f: (math.pi / 2 if swing else 0.0005 * (f > 10)) * s(f))
    key(upper, 1, lambda f: 0.6 * s(f))


scene, base, turn, upper, tilt = build()
save("start")

scene, base, turn, upper, tilt = build()
arm(turn, upper, tilt)
save("good")

scene, base, turn, upper, tilt = build()
arm(turn, upper, tilt)
upper.delta_rotation_euler.x = math.radians(10)  # bent off its hinge, the same at every frame
save("bent")

# the red team's trick: the table stays, the shoulder swings round about the vertical
scene, base, turn, upper, tilt = build()
arm(turn, upper, tilt, swing=False)
key(upper, 2, lambda f: math.pi / 2 * s(f))
save("swivel")

# the same swing through a driver reading a handle's turn (no Python: a single-property driver)
scene, base, turn, upper, tilt = build()
arm(turn, upper, tilt, swing=False)
handle = bpy.data.objects.new("Handle", None)
scene.collection.objects.link(handle)
key(handle, 2, lambda f: math.pi / 2 * s(f))
drv = upper.driver_add("rotation_euler", 2).driver
drv.type = "SUM"
var = drv.variables.new()
var.type = "TRANSFORMS"
var.targets[0].id = handle
var.targets[0].transform_type = "ROT_Z"
save("driver_swivel")


def rigged(bone_axis):
    """Upper follows a bone (Child Of) whose head is the shoulder and which turns 0.6 rad about
    its own `bone_axis` (a bone along +Z: its X is world X, its Z world -Y)."""
    scene, base, turn, upper, tilt = build()
    key(tilt, 2, lambda f: 1.2 * s(f))
    key(turn, 2, lambda f: 0.0)
    rig = bpy.data.objects.new("Rig", bpy.data.armatures.new("Rig"))
    scene.collection.objects.link(rig)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    bone = rig.data.edit_bones.new("Shoulder")
    bone.head, bone.tail, bone.roll = (0.0, 0.0, 0.5), (0.0, 0.0, 1.4), 0.0
    bpy.ops.object.mode_set(mode="OBJECT")
    pose = rig.pose.bones["Shoulder"]
    pose.rotation_mode = "XYZ"
    index = "XYZ".index(bone_axis)
    for f in range(1, LAST + 1):
        pose.rotation_euler[index] = 0.6 * s(f)
        pose.keyframe_insert("rotation_euler", index=index, frame=f)
    scene.frame_set(1)
    follow = upper.constraints.new("CHILD_OF")
    follow.target, follow.subtarget = rig, "Shoulder"
    follow.inverse_matrix = (rig.matrix_world @ pose.matrix).inverted()


rigged("Z")
save("armature_hinge")
rigged("X")
save("armature_twist")
'''

JOINTS = [{"child": "Turn", "parent": "Base", "axis": "Z"}, {"child": "Upper", "parent": "Turn", "axis": "Y"}]
FRAMES = {"frame_start": 1, "frame_end": 20}
CASES = {
    "AX": ("joint_axes", {"joints": JOINTS, "tolerance_deg": 1.0, "as_in_start": True, **FRAMES}),
    "AX_FIRST": ("joint_axes", {"joints": JOINTS, **FRAMES}),
    "TILT_PARENT": ("joint_axes", {"joints": [{"child": "Tilt", "parent": "Base", "axis": "Z", "space": "parent"}],
                                   "as_in_start": True, **FRAMES}),
    "TILT_CHILD": ("joint_axes", {"joints": [{"child": "Tilt", "parent": "Base", "axis": "Z"}], **FRAMES}),
    # a vector axis: the tilted link's own axes see the parent's Z as (0, sin 0.5, cos 0.5)
    "TILT_VECTOR": ("joint_axes", {"joints": [{"child": "Tilt", "parent": "Base", "axis": [0.0, 0.479426, 0.877583]}],
                                   **FRAMES}),
}
UPPER_OFF = "Upper on Turn turns off its Y axis"
TILT_OFF = "Tilt on Base turns off its Z axis"
# delivery -> {criterion that must refuse it: what its detail names} (the others pass)
EXPECTED = {
    "good": {"TILT_CHILD": TILT_OFF},
    "armature_hinge": {"TILT_CHILD": TILT_OFF},
    "bent": {"AX": UPPER_OFF, "TILT_CHILD": TILT_OFF},
    "swivel": {"AX": UPPER_OFF, "AX_FIRST": UPPER_OFF, "TILT_CHILD": TILT_OFF},
    "driver_swivel": {"AX": UPPER_OFF, "AX_FIRST": UPPER_OFF, "TILT_CHILD": TILT_OFF},
    "armature_twist": {"AX": UPPER_OFF, "AX_FIRST": UPPER_OFF, "TILT_CHILD": TILT_OFF},
}


def snapshot(start: Path, folder: Path) -> None:
    proc = run_bpy_script(str(VERIFIERS / "scene_snapshot.py"), "--blend", str(start),
                           "--out", str(folder / "start_scene.json"))
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam8-joints")
    script = tmp / "make.py"
    script.write_text(MAKE, encoding="utf-8")
    run_bpy(script, tmp)
    task, rubric = write_rule_task(tmp / "task", CASES, "redteam8-joints", start_mode="continue")
    snapshot(tmp / "start.blend", tmp / "task")
    return {"tmp": tmp, "task": task, "rubric": rubric}


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_a_joint_turned_about_another_axis_is_refused_and_the_honest_arm_passes(scenes, delivery):
    out = scenes["tmp"] / f"report-{delivery}.json"
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"], out)
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)
    ax = next(c for c in report["criteria"] if c["id"] == "AX")
    joints = {j["child"]: j for j in ax["evidence"]["joints"]}
    if delivery in ("good", "armature_hinge"):
        assert max(ax["measured"]["max_off_axis_deg"].values()) < 0.01, ax  # a wide margin under 1 degree
        lo, hi = joints["Upper"]["turn_about_axis_deg"]
        assert abs(abs(hi - lo) - 34.38) < 0.1, joints["Upper"]  # 0.6 rad about its own Y, seen as a turn
    if delivery == "bent":
        assert abs(joints["Upper"]["max_off_axis_deg"] - 10.0) < 0.01, joints["Upper"]
    if delivery in ("swivel", "driver_swivel"):
        assert joints["Upper"]["max_off_axis_deg"] > 80 and joints["Turn"]["max_off_axis_deg"] < 1e-3, joints


def test_the_operator_bends_the_joint_at_the_end_of_the_chain_and_only_the_start_check_kills_it(scenes):
    cases = {"AX": CASES["AX"], "AX_FIRST": CASES["AX_FIRST"]}
    task, rubric = write_rule_task(scenes["tmp"] / "op", cases, "redteam8-joints-op", start_mode="continue")
    snapshot(scenes["tmp"] / "start.blend", scenes["tmp"] / "op")
    assert "joint_off_axis" in OPERATOR_NAMES
    with local_probe() as probe:
        rows = probe.mutate(scenes["tmp"] / "good.blend", task, rubric, operators=["joint_off_axis"])
    assert_operators_killed(rows, {"joint_off_axis": {"AX"}})
    ax = next(c for c in rows[0]["criteria"] if c["id"] == "AX")
    assert UPPER_OFF in ax["detail"] and "Turn on Base" not in ax["detail"], ax["detail"]


def test_the_operator_refuses_a_task_without_a_joint_axes_criterion(scenes):
    task, rubric = write_rule_task(scenes["tmp"] / "plain", {"RANGE": ("frame_range", FRAMES)},
                                   "redteam8-joints-plain", start_mode="continue")
    with local_probe() as probe:
        rows = probe.mutate(scenes["tmp"] / "good.blend", task, rubric, operators=["joint_off_axis"])
    assert len(rows) == 1 and not rows[0]["applicable"] and "no joint_axes criterion" in rows[0]["why"], rows
