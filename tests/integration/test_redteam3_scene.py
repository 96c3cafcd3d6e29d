"""Red team 3 (issue 33), scene area, in real Blender: what a render draws and plays from outside
the places the snapshot used to look.

A start scene (a cube, a camera, a sun, Cycles, frames 1-4) and deliveries that each hold one
trick the third red team found: a Background Scene (scene.background_set) holding a wall, a
Background Scene holding a strong light, the view exposure and the camera's lens keyed to change
from frame 2 with the keys inside an NLA META strip, the camera's sensor fit turned vertical with
a tall sensor, and a part that shrinks only after the start scene's last frame (graded where the
task names a longer window).  Each is refused by the criterion named; an honest delivery (samples
changed, the cube moved over time) passes them all.  Blender runs unsandboxed (LOCAL): everything
it runs here is this test's own code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.probe_cases import local_probe, probe_local, assert_refused_as_expected, run_bpy, write_rule_task

pytestmark = pytest.mark.blender

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT_SCRIPT = ROOT / "verifiers" / "scene_snapshot.py"

MAKE = r'''
import sys
from math import radians
from pathlib import Path

import bpy

out = Path(sys.argv[-1])
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0.0, 0.0, 0.5))
cube = bpy.context.active_object
cube.name = "Cube"
cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
cam.location, cam.rotation_euler = (0.0, -6.0, 2.0), (radians(75), 0.0, 0.0)
scene.collection.objects.link(cam)
sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
sun.data.energy = 3.0
scene.collection.objects.link(sun)
scene.camera = cam
scene.render.engine = "CYCLES"
scene.cycles.samples = 64
scene.frame_start, scene.frame_end = 1, 4
bpy.ops.wm.save_as_mainfile(filepath=str(out / "start.blend"))


def variant(name, change):
    bpy.ops.wm.open_mainfile(filepath=str(out / "start.blend"))
    change(bpy.context.scene, bpy.data.objects)
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


def honest(scene, objs):
    scene.cycles.samples = 256
    cube = objs["Cube"]
    for frame, x in ((1, 0.0), (4, 1.0)):
        cube.location.x = x
        cube.keyframe_insert("location", frame=frame)


def set_scene(scene, what):
    other = bpy.data.scenes.new("Set")
    other.collection.objects.link(what)
    scene.background_set = other


def background_wall(scene, objs):
    mesh = bpy.data.meshes.new("Wall")
    mesh.from_pydata([(-3, -3, -1), (3, -3, -1), (3, -3, 4), (-3, -3, 4)], [], [(0, 1, 2, 3)])
    set_scene(scene, bpy.data.objects.new("Wall", mesh))


def background_light(scene, objs):
    light = bpy.data.objects.new("Flood", bpy.data.lights.new("Flood", "POINT"))
    light.data.energy = 500.0
    light.location = (1.0, -2.0, 2.0)
    set_scene(scene, light)


def key_step(ident, path, later):
    now = getattr(ident, path)
    ident.keyframe_insert(path, frame=1)
    setattr(ident, path, later)
    ident.keyframe_insert(path, frame=2)
    setattr(ident, path, now)


def hide_in_meta(idents):
    for ident in idents:
        ad = ident.animation_data
        ad.nla_tracks.new().strips.new("take", 1, ad.action)
        ad.action = None
        for track in ad.nla_tracks:
            for strip in track.strips:
                strip.select = True
    window = bpy.context.window_manager.windows[0]
    area = window.screen.areas[0]
    area.type = "NLA_EDITOR"
    area.spaces.active.dopesheet.show_only_selected = False
    region = next(rg for rg in area.regions if rg.type == "WINDOW")
    with bpy.context.temp_override(window=window, screen=window.screen, area=area, region=region):
        bpy.ops.nla.meta_add()
    for ident in idents:
        assert any(s.type == "META" for t in ident.animation_data.nla_tracks for s in t.strips), ident


def meta_exposure(scene, objs):
    key_step(scene.view_settings, "exposure", 2.0)
    hide_in_meta([scene])


def meta_lens(scene, objs):
    key_step(objs["Cam"].data, "lens", 18.0)
    hide_in_meta([objs["Cam"].data])


def sensor_fit(scene, objs):
    objs["Cam"].data.sensor_fit = "VERTICAL"
    objs["Cam"].data.sensor_height = 80.0


def late_shrink(scene, objs):
    honest(scene, objs)
    cube = objs["Cube"]
    for frame, size in ((5, 1.0), (6, 0.001)):
        cube.scale = (size, size, size)
        cube.keyframe_insert("scale", frame=frame)


variant("honest", honest)
variant("wall", background_wall)
variant("flood", background_light)
variant("exposure", meta_exposure)
variant("lens", meta_lens)
variant("sensor", sensor_fit)
variant("late", late_shrink)
'''

MOVES = {"Cube": ["matrix_world", "animation"], "render": ["cycles:samples"]}
CASES = {
    "KEPT": ("scene_unchanged", {"allow_changed": MOVES}),
    # the task renders frames 1-8: past the start scene's 4 the start values hold
    "LATE": ("scene_unchanged", {"sections": ["objects"], "allow_changed": MOVES, "frames": [1, 8]}),
    "LIGHTS": ("light_power", {"exclude": ["Sun"], "max_power": 15}),
}
# delivery -> {criterion that must refuse it: what its detail names} (the others pass)
EXPECTED = {
    "start": {}, "honest": {},
    "wall": {"KEPT": "render background_set"},
    "flood": {"KEPT": "render background_set", "LIGHTS": "Flood"},
    "exposure": {"KEPT": "render animation"},
    "lens": {"KEPT": "data_animation", "LATE": "data_animation"},
    "sensor": {"KEPT": "Cam (camera)", "LATE": "Cam (camera)"},
    "late": {"LATE": "world_scale at frame"},
}



@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam3-scene")
    script = tmp / "make.py"
    script.write_text(MAKE, encoding="utf-8")
    run_bpy(script, tmp)
    task, rubric = write_rule_task(tmp / "task", CASES, "redteam3-scene", start_mode="continue")
    run_bpy(SNAPSHOT_SCRIPT, "--blend", tmp / "start.blend", "--out", tmp / "task" / "start_scene.json")
    return {"tmp": tmp, "task": task, "rubric": rubric}


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_each_trick_is_refused_and_honest_work_passes(scenes, delivery):
    out = scenes["tmp"] / f"report-{delivery}.json"
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"], out)
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)


# --- the operators (verifiers/mutations.py, "red team 3: scene") --------------------------------

SCENE_OPERATORS = {"nla_meta_hidden_animation": {"KEPT", "LATE"}, "sensor_fit_vertical_wide": {"KEPT", "LATE"}}


def test_scene_operators_apply_and_are_killed(scenes):
    with local_probe() as probe:
        rows = probe.mutate(scenes["tmp"] / "honest.blend", scenes["task"], scenes["rubric"],
                            operators=list(SCENE_OPERATORS))
    assert sorted(row["operator"] for row in rows) == sorted(SCENE_OPERATORS)
    for row in rows:
        assert row["applicable"] and row["error"] is None, row
        refused = {c["id"] for c in row["criteria"] if not c["passed"]}
        assert refused == SCENE_OPERATORS[row["operator"]], (row["operator"], row["criteria"])


def test_scene_operators_are_refused_where_nothing_keeps_it(scenes, tmp_path):
    """A rubric with only the light bound: nothing keeps the render, a camera or its animation."""
    task, rubric = write_rule_task(tmp_path, {"LIGHTS": CASES["LIGHTS"]}, "redteam3-scene-refused",
                                   start_mode="continue")
    with local_probe() as probe:
        rows = {r["operator"]: r for r in probe.mutate(scenes["tmp"] / "honest.blend", task, rubric,
                                                        operators=list(SCENE_OPERATORS))}
    for name in SCENE_OPERATORS:
        assert not rows[name]["applicable"] and rows[name]["why"], rows[name]
