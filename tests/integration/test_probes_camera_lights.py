"""Spec items on cameras and lights, measured as a render evaluates them (real Blender): a
camera's roll (``camera_settings`` ``max_roll``), a light's beam that must reach what it is aimed
at (``aimed_at``: a spot's cone, an area light's spread), and a light whose power an F-curve
changes after frame 1 (``light_settings`` held at every graded frame)."""

from __future__ import annotations


import pytest

from tests.probe_cases import probe_local, write_rule_task
from tests.bpy_forks import run_bpy_script


pytestmark = pytest.mark.blender

SCENE = r'''
import sys
from math import radians
import bpy
from mathutils import Vector
out = sys.argv[1]
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o)
scene = bpy.context.scene
scene.frame_start, scene.frame_end = 1, 3
bpy.ops.mesh.primitive_cube_add(size=0.5, location=(0, 0, 0.25))
bpy.context.object.name = "Product"


def aim(obj, roll=0.0):
    direction = Vector((0, 0, 0.25)) - obj.location
    obj.rotation_euler = direction.to_track_quat("-Z", "Y").to_euler()
    obj.rotation_euler.rotate_axis("Z", radians(roll))


def camera(name, roll):
    cam = bpy.data.objects.new(name, bpy.data.cameras.new(name))
    cam.location = (0, -4, 1)
    scene.collection.objects.link(cam)
    aim(cam, roll)
    return cam


scene.camera = camera("Level", 0.0)
camera("Rolled", 25.0)


def light(name, kind, location, **settings):
    data = bpy.data.lights.new(name, kind)
    for key, value in settings.items():
        setattr(data, key, value)
    obj = bpy.data.objects.new(name, data)
    obj.location = location
    scene.collection.objects.link(obj)
    aim(obj)
    return obj


light("Spot", "SPOT", (2, -2, 2), spot_size=radians(45))
narrow = light("NarrowSpot", "SPOT", (2, -2, 2), spot_size=radians(2))
narrow.rotation_euler.rotate_axis("X", radians(3))  # aimed within 10 degrees, its 1-degree half-cone off
light("Area", "AREA", (-2, -2, 2), energy=60.0)
narrow_area = light("NarrowArea", "AREA", (-2, -2, 2), spread=radians(2))
narrow_area.rotation_euler.rotate_axis("X", radians(3))
dims = light("Dims", "AREA", (-2, 2, 2), energy=60.0)  # 60 W at frame 1, 6 W from frame 2
dims.data.keyframe_insert("energy", frame=1)
dims.data.energy = 6.0
dims.data.keyframe_insert("energy", frame=2)
scene.frame_set(1)
bpy.ops.wm.save_as_mainfile(filepath=out)
'''

CASES = {
    "L01": ("camera_settings", {"object": "Level", "max_roll": 2, "active": True}, True),
    "L02": ("camera_settings", {"object": "Rolled", "max_roll": 2}, False),
    "L03": ("camera_settings", {"object": "Rolled", "max_roll": 30}, True),
    "L04": ("aimed_at", {"objects": ["Spot", "Area", "Level"], "target": "Product", "max_angle": 10}, True),
    "L05": ("aimed_at", {"object": "NarrowSpot", "target": "Product", "max_angle": 10}, False),
    "L06": ("aimed_at", {"object": "NarrowArea", "target": "Product", "max_angle": 10}, False),
    "L07": ("light_settings", {"object": "Area", "type": "AREA", "energy": 60}, True),
    # right at frame 1, a tenth of it from frame 2: the rubric grades 1..3 (L09)
    "L08": ("light_settings", {"object": "Dims", "type": "AREA", "energy": 60, "frame": 1}, False),
    "L09": ("stays_in_place", {"objects": {"Product": [0, 0, 0.25]}, "tolerance": 0.001,
                               "frame_start": 1, "frame_end": 3}, True),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("camera-lights")
    script, blend = tmp / "scene.py", tmp / "scene.blend"
    script.write_text(SCENE)
    proc = run_bpy_script(str(script), str(blend))
    assert proc.returncode == 0, proc.stderr[-3000:]
    write_rule_task(tmp, {cid: (m, p) for cid, (m, p, _) in CASES.items()}, "camera-lights")
    report = probe_local(blend, tmp / "task.json", tmp / "rubric.json", tmp / "report.json")
    return {c["id"]: c for c in report["criteria"]}


@pytest.mark.parametrize("cid", sorted(CASES))
def test_case(graded, cid):
    assert graded[cid]["passed"] is CASES[cid][2], graded[cid]


def test_the_measures_name_roll_beam_and_frame(graded):
    assert graded["L02"]["measured"]["roll"] == pytest.approx(25.0, abs=0.5)
    assert "rolled 25" in graded["L02"]["detail"]
    assert graded["L05"]["evidence"]["beam_half_angles"]["NarrowSpot"] == pytest.approx(1.0, abs=1e-3)
    assert "beam covers" in graded["L06"]["detail"] and graded["L04"]["evidence"]["target_spans"]["Spot"] < 22.5
    assert graded["L08"]["evidence"]["frame"] == 2 and "energy 6 W" in graded["L08"]["detail"]
