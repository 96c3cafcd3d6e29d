"""Red team 2 (issue 33), scene area, in real Blender: what a render uses beyond the parts.

A start scene (a cube, two cameras, a sun, Cycles) and deliveries that each hold one trick the
red team found: Cycles' Sample Subset and a wide pixel filter under an allowed ``cycles`` group,
custom normals flipped inward, a Color strip in the Video Sequencer, a timeline marker that
switches the render camera, a part shrunk to a speck after the first frame while its moves are
allowed, an extra light of negative power, an extra light whose light nodes boost it, and a
mirrored camera.  Each is refused by the criterion named; an honest delivery (samples changed,
the cube moved and turned over time) passes them all.  Blender runs unsandboxed (LOCAL):
everything it runs here is this test's own code."""

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
for name, loc, rot in (("Cam", (0.0, -6.0, 2.0), (75, 0, 0)), ("CamB", (6.0, 0.0, 2.0), (75, 0, 90))):
    cam = bpy.data.objects.new(name, bpy.data.cameras.new(name))
    cam.location, cam.rotation_euler = loc, [radians(a) for a in rot]
    scene.collection.objects.link(cam)
sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
sun.data.energy = 3.0
scene.collection.objects.link(sun)
scene.camera = bpy.data.objects["Cam"]
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
    for frame, x, turn in ((1, 0.0, 0), (4, 1.0, 50)):
        cube.location.x, cube.rotation_euler.z = x, radians(turn)
        cube.keyframe_insert("location", frame=frame)
        cube.keyframe_insert("rotation_euler", frame=frame)


def subset(scene, objs):
    scene.cycles.samples = 256
    scene.cycles.use_sample_subset, scene.cycles.sample_subset_length = True, 4


def pixel_filter(scene, objs):
    scene.cycles.filter_width = 10.0


def normals(scene, objs):
    mesh = objs["Cube"].data
    faces = [0] * len(mesh.loops)
    for face in mesh.polygons:
        for i in range(face.loop_start, face.loop_start + face.loop_total):
            faces[i] = face.index
    mesh.normals_split_custom_set([tuple(-c for c in mesh.polygons[f].normal) for f in faces])


def sequencer(scene, objs):
    editor = scene.sequence_editor_create()
    editor.strips.new_effect("Flat", "COLOR", 1, frame_start=1, length=4)


def markers(scene, objs):
    scene.timeline_markers.new("F2", frame=2).camera = objs["CamB"]
    scene.timeline_markers.new("F1", frame=1).camera = objs["Cam"]


def shrink(scene, objs):
    cube = objs["Cube"]
    for frame, size in ((1, 1.0), (2, 0.001), (4, 0.001)):
        cube.scale = (size, size, size)
        cube.keyframe_insert("scale", frame=frame)


def extra_light(scene, energy, boost=None, colour=None):
    light = bpy.data.objects.new("Extra", bpy.data.lights.new("Extra", "POINT"))
    light.data.energy = energy
    light.location = (1.0, -2.0, 2.0)
    scene.collection.objects.link(light)
    if boost is not None:
        light.data.use_nodes = True
        tree = light.data.node_tree
        emission = next(n for n in tree.nodes if n.type == "EMISSION")
        emission.inputs["Strength"].default_value = boost
        if colour is not None:  # through Combine Color: a socket's own colour cannot go negative
            combine = tree.nodes.new("ShaderNodeCombineColor")
            for socket, value in zip(("Red", "Green", "Blue"), colour):
                combine.inputs[socket].default_value = value
            tree.links.new(combine.outputs["Color"], emission.inputs["Color"])


def mirrored(scene, objs):
    objs["Cam"].scale = (-1.0, 1.0, 1.0)


variant("honest", honest)
variant("subset", subset)
variant("filter", pixel_filter)
variant("normals", normals)
variant("sequencer", sequencer)
variant("markers", markers)
variant("shrink", shrink)
variant("negative", lambda scene, objs: extra_light(scene, -3000.0))
variant("boosted", lambda scene, objs: extra_light(scene, 10.0, boost=400.0))
# a negative strength times a colour whose brightest channel is 0: (4000, 0, 0) W rendered
variant("negated", lambda scene, objs: extra_light(scene, 10.0, boost=-400.0, colour=(-1.0, 0.0, 0.0)))
variant("weak", lambda scene, objs: extra_light(scene, 10.0))
variant("mirrored", mirrored)
'''

MOVES = {"Cube": ["matrix_world", "animation"],
         "render": ["cycles:samples", "cycles:preview_*"]}
CASES = {
    "KEPT": ("scene_unchanged", {"allow_changed": MOVES, "allow_new": {"types": ["LIGHT"]}}),
    "LIGHTS": ("light_power", {"exclude": ["Sun"], "max_power": 15}),
    "CAMERA": ("render_camera", {"camera": "Cam"}),
}
# delivery -> {criterion that must refuse it: what its detail names} (the others pass)
EXPECTED = {
    "start": {}, "honest": {}, "weak": {},
    "subset": {"KEPT": "render cycles"}, "filter": {"KEPT": "render cycles"},
    "normals": {"KEPT": "Cube (attributes, normals)"}, "sequencer": {"KEPT": "render sequencer"},
    "markers": {"KEPT": "render markers", "CAMERA": "CamB renders"}, "shrink": {"KEPT": "world_scale"},
    "negative": {"LIGHTS": "-3000"}, "boosted": {"LIGHTS": "4000 W"}, "negated": {"LIGHTS": "4000 W"},
    "mirrored": {"CAMERA": "mirrored", "KEPT": "Cam (matrix_world, world_scale)"},
}



@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam2-scene")
    script = tmp / "make.py"
    script.write_text(MAKE, encoding="utf-8")
    run_bpy(script, tmp)
    task, rubric = write_rule_task(tmp / "task", CASES, "redteam2-scene")
    run_bpy(SNAPSHOT_SCRIPT, "--blend", tmp / "start.blend", "--out", tmp / "task" / "start_scene.json")
    return {"tmp": tmp, "task": task, "rubric": rubric}


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_each_trick_is_refused_and_honest_work_passes(scenes, delivery):
    out = scenes["tmp"] / f"report-{delivery}.json"
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"], out)
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)


# --- the operators (verifiers/mutations.py, "red team 2: scene") --------------------------------

# operator -> the criteria that must refuse it, on the honest delivery under CASES (the rubric keeps
# the render but Cycles' samples, the Cube's shape, and allows its moves and added lights)
SCENE_OPERATORS = {
    "sequencer_strip": {"KEPT"}, "marker_camera_switch": {"KEPT", "CAMERA"}, "engine_setting_drift": {"KEPT"},
    "camera_mirrored": {"KEPT", "CAMERA"}, "negative_light": {"LIGHTS"}, "light_node_boost": {"LIGHTS"},
    "custom_normals_flipped": {"KEPT"},
}


def test_scene_operators_apply_and_are_killed(scenes):
    with local_probe() as probe:
        rows = probe.mutate(scenes["tmp"] / "honest.blend", scenes["task"], scenes["rubric"],
                            operators=list(SCENE_OPERATORS))
    assert sorted(row["operator"] for row in rows) == sorted(SCENE_OPERATORS)
    for row in rows:
        assert row["applicable"] and row["error"] is None, row
        refused = {c["id"] for c in row["criteria"] if not c["passed"]}
        assert refused == SCENE_OPERATORS[row["operator"]], (row["operator"], row["criteria"])


def test_scene_operators_are_refused_where_nothing_keeps_or_bounds_it(scenes, tmp_path):
    """A rubric with only the camera check: nothing keeps the render, a mesh or bounds lights."""
    task, rubric = write_rule_task(tmp_path, {"CAMERA": CASES["CAMERA"]}, "redteam2-scene-refused")
    with local_probe() as probe:
        rows = {r["operator"]: r for r in probe.mutate(scenes["tmp"] / "honest.blend", task, rubric,
                                                        operators=list(SCENE_OPERATORS))}
    for name in ("sequencer_strip", "engine_setting_drift", "negative_light", "light_node_boost",
                 "custom_normals_flipped"):
        assert not rows[name]["applicable"] and rows[name]["why"], rows[name]
    assert rows["camera_mirrored"]["applicable"] and rows["marker_camera_switch"]["applicable"]
