"""Red team 13 (issue 33), robot-carry, in real Blender: an arm that reaches through the set or
holds the box from inside it.

* The links of a jointed arm were never measured against anything: only the box's bounding box
  against the tables.  `solids_apart` measures the links' evaluated meshes, shell by shell,
  against the tables, the box and the floor: a bar through a 3 cm table top or a gripper buried
  in the box is refused, one resting on a face (touching) or pressed 3 mm in is not.  A table
  that is one concave shell (a U: top and legs): a bar in the open space under its top passes,
  one whose end is 2 cm into a leg is refused with that depth (the samples in the open space are
  settled by their clearance, not tested one by one).
* A box counted as held whenever its top centre was at the tip, whichever way the pad faced.
  `supported_throughout`'s ``pad_from`` asks the wrist-to-tip axis to point into the box from the
  face it holds: a wrist below the tip (the pad facing up from inside the box) or beside it
  (side-on) is no grip; a wrist straight above passes.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import probe_local, assert_refused_as_expected, run_bpy, write_rule_task
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = r'''
import sys
from pathlib import Path

import bpy

out = Path(sys.argv[-1])
TIP = (0.0, 0.0, 1.3)  # the centre of the carried box's top face


def block(name, lo, hi, origin=(0.0, 0.0, 0.0), shells=None):
    """A mesh object of axis-aligned boxes ([(lo, hi)], world coordinates) with its origin at ``origin``."""
    verts, faces = [], []
    for a, b in shells or [(lo, hi)]:
        n = len(verts)
        verts += [(x - origin[0], y - origin[1], z - origin[2])
                  for z in (a[2], b[2]) for y in (a[1], b[1]) for x in (a[0], b[0])]
        faces += [tuple(n + i for i in f) for f in
                  ((0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5))]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    obj = bpy.data.objects.new(name, mesh)
    obj.location = origin
    bpy.context.scene.collection.objects.link(obj)
    return obj


def build(name, wrist, gripper, link):
    """A table (a 3 cm top on a leg) at x = 1, a box carried in the air under the tip, a gripper
    (origin ``wrist``, its mesh the box ``gripper``) carrying the tip, and a bar ``link``."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 3
    block("Table", None, None, shells=[((0.7, -0.3, 0.72), (1.3, 0.3, 0.75)), ((0.95, -0.05, 0.0), (1.05, 0.05, 0.72))])
    block("Box", (-0.1, -0.1, 1.1), (0.1, 0.1, 1.3))
    grip = block("Wrist", *gripper, origin=wrist)
    tip = bpy.data.objects.new("Tip", None)
    scene.collection.objects.link(tip)
    tip.parent = grip
    tip.location = tuple(t - w for t, w in zip(TIP, wrist))
    block("Link", *link)
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


ABOVE = ((0.0, 0.0, 1.5), ((-0.07, -0.07, 1.3), (0.07, 0.07, 1.5)))  # the pad on the top face
BAR = ((1.6, -0.05, 0.0), (1.7, 0.05, 1.0))  # a bar standing clear of the table
build("held_from_above", *ABOVE, BAR)
# the wrist below the tip: the gripper buried in the box, its pad facing up
build("held_from_inside", (0.0, 0.0, 1.1), ((-0.07, -0.07, 1.1), (0.07, 0.07, 1.3)), BAR)
# the gripper lying on the top face, its axis across it
build("held_side_on", (0.2, 0.0, 1.3), ((0.0, -0.07, 1.3), (0.2, 0.07, 1.44)), BAR)
build("bar_through_table", *ABOVE, ((1.1, -0.05, 0.3), (1.2, 0.05, 1.3)))
build("bar_pressed_in", *ABOVE, ((1.1, -0.05, 0.747), (1.2, 0.05, 1.5)))
build("bar_on_table", *ABOVE, ((1.1, -0.05, 0.75), (1.2, 0.05, 1.5)))


def u_table():
    """The table as one closed, concave shell: a 5 cm top on two 5 cm legs (a U seen from the
    front), so that most of its box is the open space under the top, outside it."""
    xz = {"A": (0.7, 0.0), "B": (0.75, 0.0), "C": (0.75, 0.7), "D": (0.7, 0.7), "E": (0.7, 0.75),
          "F": (1.3, 0.75), "G": (1.3, 0.7), "H": (1.25, 0.7), "I": (1.25, 0.0), "J": (1.3, 0.0)}
    names = list(xz)
    verts = [(x, y, z) for y in (-0.3, 0.3) for x, z in xz.values()]
    front = lambda ks: tuple(names.index(k) for k in ks)  # noqa: E731
    back = lambda ks: tuple(len(names) + names.index(k) for k in reversed(ks))  # noqa: E731
    faces = [f(ks) for ks in ("ABCD", "DCHGFE", "HIJG") for f in (front, back)]
    ring = "ABCHIJGFED"
    faces += [(names.index(a), len(names) + names.index(a), len(names) + names.index(b), names.index(b))
              for a, b in zip(ring, ring[1:] + ring[0])]
    mesh = bpy.data.meshes.new("Table")
    mesh.from_pydata(verts, [], faces)
    bpy.context.scene.collection.objects.link(bpy.data.objects.new("Table", mesh))


def build_u(name, link):
    """``build``'s set with the U-shaped table and the bar ``link`` under its top."""
    build(name, *ABOVE, link)
    bpy.data.objects.remove(bpy.data.objects["Table"])
    u_table()
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


# a bar standing in the open space between the legs, clear of the top: thousands of its surface
# samples lie in the table's box but outside it (the grader settles them by their clearance)
build_u("bar_under_u_table", ((0.85, -0.05, 0.1), (0.95, 0.05, 0.69)))
# a bar lying under the top with its end 2 cm into the right leg
build_u("bar_into_u_leg", ((0.8, -0.05, 0.3), (1.27, 0.05, 0.35)))
'''

FRAMES = {"frame_start": 1, "frame_end": 3, "frame_step": 1}
CASES = {
    "APART": ("solids_apart", {"objects": ["Wrist", "Link"], "others": ["Table", "Box"], "tolerance": 0.005,
                               **FRAMES}),
    "PAD": ("supported_throughout", {"object": "Box", "supports": ["Table"], "carrier": "Tip",
                                     "anchor": "top_center", "rest_tolerance": 0.01, "carrier_tolerance": 0.03,
                                     "max_step": 0.25, "min_carried_frames": 2, "slip_tolerance": 0.002,
                                     "snap_tolerance": 0.03, "pad_from": "Wrist", "pad_tolerance_deg": 10,
                                     **FRAMES}),
}
EXPECTED = {
    "held_from_above": {},
    "held_from_inside": {"APART": "m into Box", "PAD": "the pad does not face"},
    "held_side_on": {"PAD": "the pad does not face"},
    "bar_through_table": {"APART": "m into Table"},
    "bar_pressed_in": {},
    "bar_on_table": {},
    "bar_under_u_table": {},
    "bar_into_u_leg": {"APART": "runs 0.0200 m into Table"},
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam13_robot")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    task, rubric = write_rule_task(tmp / "task", CASES, "redteam13-robot", start_mode="from_scratch")
    return {"tmp": tmp, "task": task, "rubric": rubric}


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_an_arm_through_the_set_or_holding_from_inside_is_refused(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                                   scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)


def test_the_new_operators_are_listed():
    assert {"elbow_branch_flipped", "pad_flipped_through_tip"} <= set(OPERATOR_NAMES)
