"""Red team 5, lights, in real Blender: a light object's scale is part of the beam a render draws.

A spot's cone is drawn in the light's local, scaled frame: an object scale of (0.03, 0.03, 1)
makes a 40 degree Spot Size a ~1.2 degree pin-point (``aimed_at`` measures the beam's coverage
there).  An area light's emitting surface is its Size times the object's scale: a 0.6 m key
scaled 0.001 is a 0.6 mm point with hard shadows (``light_settings`` ``min_emitter_size``).  The
``light_scaled_narrow`` operator (verifiers/mutations.py, "red team 5: lights") makes both moves.
Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations


import pytest

from tests.probe_cases import local_probe, probe_local, write_rule_task
from tests.bpy_forks import run_bpy

pytestmark = pytest.mark.blender

MAKE = r'''
import sys
from math import radians
from pathlib import Path

import bpy
from mathutils import Vector

out = Path(sys.argv[-1])
TARGET = Vector((0.0, 0.0, 0.25))


def fresh():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.mesh.primitive_cube_add(size=0.5, location=TARGET)
    bpy.context.active_object.name = "Product"


def light(name, kind, location, scale=(1.0, 1.0, 1.0), **settings):
    data = bpy.data.lights.new(name, kind)
    for key, value in settings.items():
        setattr(data, key, value)
    obj = bpy.data.objects.new(name, data)
    obj.location, obj.scale = location, scale
    obj.rotation_euler = (TARGET - obj.location).to_track_quat("-Z", "Y").to_euler()
    bpy.context.scene.collection.objects.link(obj)
    return obj


def tracked(name, kind, location, scale, **settings):
    """Aimed by a Track To constraint at an empty on the product, not by its rotation."""
    obj = light(name, kind, location, scale, **settings)
    obj.rotation_euler = (0.0, 0.0, 0.0)
    aim = bpy.data.objects.get("Aim") or bpy.data.objects.new("Aim", None)
    if aim.name not in bpy.context.scene.objects:
        aim.location = TARGET
        bpy.context.scene.collection.objects.link(aim)
    track = obj.constraints.new("TRACK_TO")
    track.target, track.track_axis, track.up_axis = aim, "TRACK_NEGATIVE_Z", "UP_Y"
    return obj


fresh()
light("Rim", "SPOT", (2, 2, 2), spot_size=radians(40))
light("RimPinhole", "SPOT", (2, 2, 2), (0.03, 0.03, 1.0), spot_size=radians(40))
light("RimWide", "SPOT", (2, 2, 2), (3.0, 3.0, 1.0), spot_size=radians(8))  # 8 deg widened past the cube
tracked("RimTracked", "SPOT", (-2, 2, 2), (0.03, 0.03, 1.0), spot_size=radians(40))
light("Key", "AREA", (-2, -2, 2), size=0.6)
light("KeyTiny", "AREA", (-2, -2, 2), (0.001, 0.001, 0.001), size=0.6)
light("KeySmall", "AREA", (-2, -2, 2), size=0.1)
light("KeyScaledUp", "AREA", (-2, -2, 2), (4.0, 4.0, 1.0), size=0.1)  # a 0.1 m panel drawn 0.4 m
light("KeyStrip", "AREA", (-2, -2, 2), shape="RECTANGLE", size=1.0, size_y=0.1)
light("KeyFlatY", "AREA", (-2, -2, 2), (1.0, 0.1, 1.0), size=0.6)
light("AreaSqueezed", "AREA", (2, -2, 2), (0.1, 1.0, 1.0), spread=radians(60))
light("Bulb", "POINT", (0, -3, 2), shadow_soft_size=0.2)
light("BulbShrunk", "POINT", (0, -3, 2), (0.1, 0.1, 0.1), shadow_soft_size=0.2)
bpy.ops.wm.save_as_mainfile(filepath=str(out / "lights.blend"))

fresh()
light("Key", "AREA", (-2, -2, 2), size=0.6)
light("Rim", "SPOT", (2, 2, 2), spot_size=radians(40))
bpy.ops.wm.save_as_mainfile(filepath=str(out / "rig.blend"))

fresh()
light("Bulb", "POINT", (0, -3, 2), shadow_soft_size=0.2)
bpy.ops.wm.save_as_mainfile(filepath=str(out / "bulb.blend"))
'''


def aim(*names: str) -> tuple[str, dict]:
    return "aimed_at", {"objects": list(names), "target": "Product", "max_angle": 10}


def soft(name: str, kind: str = "AREA") -> tuple[str, dict]:
    return "light_settings", {"object": name, "type": kind, "min_emitter_size": 0.25}


# criterion -> (method, params, passes)
CASES = {
    "A_HONEST": (*aim("Rim", "RimWide", "Key"), True),
    "A_PINHOLE": (*aim("RimPinhole"), False),
    "A_TRACKED": (*aim("RimTracked"), False),  # Track To keeps the squeezed scale
    "A_SQUEEZED": (*aim("AreaSqueezed"), False),  # spread 60: covers it in the world, not in its frame
    "S_KEY": (*soft("Key"), True),
    "S_TINY": (*soft("KeyTiny"), False),
    "S_SMALL": (*soft("KeySmall"), False),
    "S_SCALED_UP": (*soft("KeyScaledUp"), True),
    "S_STRIP": (*soft("KeyStrip"), False),
    "S_FLAT_Y": (*soft("KeyFlatY"), False),
    "S_BULB": (*soft("Bulb", "POINT"), True),
    "S_BULB_SHRUNK": (*soft("BulbShrunk", "POINT"), False),
}



@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam5-lights")
    script = tmp / "make.py"
    script.write_text(MAKE, encoding="utf-8")
    run_bpy(script, tmp)
    task, rubric = write_rule_task(tmp / "task", {cid: (m, p) for cid, (m, p, _) in CASES.items()},
                                   "redteam5-lights")
    report = probe_local(tmp / "lights.blend", task, rubric, tmp / "report.json")
    return {"tmp": tmp, "graded": {c["id"]: c for c in report["criteria"]}}


@pytest.mark.parametrize("cid", sorted(CASES))
def test_case(scenes, cid):
    got = scenes["graded"][cid]
    assert got.get("error") is None, got
    assert got["passed"] is CASES[cid][2], got


def test_the_measures_name_the_beam_and_the_emitter(scenes):
    graded = scenes["graded"]
    # the pin-point spot: ~0.6 deg half-cone in the world, the cube spans ~27 deg in its frame
    assert graded["A_PINHOLE"]["evidence"]["target_spans"]["RimPinhole"] > 20.0
    assert "beam covers 20.0 deg" in graded["A_PINHOLE"]["detail"]
    assert graded["A_HONEST"]["evidence"]["target_spans"]["Rim"] < 10.0
    assert graded["S_TINY"]["measured"]["KeyTiny"]["emitter_size"] == pytest.approx(0.0006, abs=1e-6)
    assert "emitter 1 mm across" in graded["S_TINY"]["detail"]
    assert graded["S_KEY"]["measured"]["Key"]["emitter_size"] == pytest.approx(0.6, abs=1e-6)
    assert graded["S_SCALED_UP"]["measured"]["KeyScaledUp"]["emitter_size"] == pytest.approx(0.4, abs=1e-6)
    assert graded["S_STRIP"]["measured"]["KeyStrip"]["emitter_size"] == pytest.approx(0.1, abs=1e-6)
    assert graded["S_BULB_SHRUNK"]["measured"]["BulbShrunk"]["emitter_size"] == pytest.approx(0.04, abs=1e-6)


# --- the operator (verifiers/mutations.py, "red team 5: lights") --------------------------------

RIG = {"KEY": soft("Key"), "AIM": aim("Key", "Rim")}


def test_light_scaled_narrow_applies_and_is_killed(scenes):
    task, rubric = write_rule_task(scenes["tmp"] / "rig-task", RIG, "redteam5-rig")
    blend = scenes["tmp"] / "rig.blend"
    before = probe_local(blend, task, rubric, scenes["tmp"] / "rig.json")
    assert all(c["passed"] for c in before["criteria"]), before["criteria"]
    with local_probe() as probe:
        (row,) = probe.mutate(blend, task, rubric, operators=["light_scaled_narrow"])
    assert row["applicable"] and row["error"] is None, row
    refused = {c["id"]: c for c in row["criteria"] if not c["passed"]}
    assert set(refused) == {"KEY", "AIM"}, row["criteria"]
    assert refused["AIM"]["evidence"]["off_target"] == ["Rim"], refused["AIM"]


def test_light_scaled_narrow_needs_a_spot_or_area_light(scenes):
    task, rubric = write_rule_task(scenes["tmp"] / "bulb-task", {"BULB": soft("Bulb", "POINT")}, "redteam5-bulb")
    with local_probe() as probe:
        (row,) = probe.mutate(scenes["tmp"] / "bulb.blend", task, rubric, operators=["light_scaled_narrow"])
    assert not row["applicable"] and row["why"] == "no spot or area light", row
