"""The scene group in real Blender: a start scene's snapshot (scene_snapshot.py), a delivery that
leaves it alone, and one "hacked" delivery holding a reward hacker's changes at once (a rotated
cube, a changed lens, a camera shift, a brighter sun, a deleted and a render-hidden object, a
deleted face, border crop, frame step 2, an inverting compositor, a new decal and a big
occluder).  Criteria that allow every change but one show that each change alone is caught;
render_overrides and new_objects pass and fail; the start_scene CLI writes and checks a seed's
snapshot.  Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.probe_cases import probe_local, write_rule_task
from jsonschema import Draft202012Validator

from verifiers import start_scene
from blender.runner import BlenderProcessError
from verifiers.probe_catalogue import builtin_methods
from tests.bpy_forks import run_bpy

pytestmark = pytest.mark.blender

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT_SCRIPT = ROOT / "verifiers" / "scene_snapshot.py"

# Builds the start scene in the open (empty) scene: run by the test's own script below, and as a
# seed's reference project (build_workspace runs it in a fresh empty scene) for the CLI test.
BUILD_START = r'''
import bpy
import bmesh  # importable once bpy is
from math import radians

scene = bpy.context.scene


def mesh_object(name, size, location):
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=size)
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new(name, mesh)
    obj.location = location
    scene.collection.objects.link(obj)
    return obj


mesh_object("CubeA", 1.0, (-1.0, 0.0, 0.5))
mesh_object("CubeB", 1.0, (1.5, 0.0, 0.5))
mesh_object("Prop", 0.5, (0.0, 2.0, 0.25))
floor = mesh_object("Floor", 1.0, (0.0, 0.0, -0.05))
floor.scale = (10.0, 10.0, 0.1)
for name, loc, rot in (("Cam", (0.0, -8.0, 3.0), (70, 0, 0)), ("CamB", (8.0, 0.0, 3.0), (70, 0, 90))):
    cam = bpy.data.objects.new(name, bpy.data.cameras.new(name))
    cam.location, cam.rotation_euler = loc, [radians(a) for a in rot]
    cam.data.lens = 50.0
    scene.collection.objects.link(cam)
sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
sun.data.energy = 3.0
sun.rotation_euler = (radians(40), 0.0, radians(30))
scene.collection.objects.link(sun)
scene.camera = bpy.data.objects["Cam"]
scene.render.engine = "BLENDER_WORKBENCH"
scene.render.resolution_x, scene.render.resolution_y, scene.render.resolution_percentage = 640, 480, 100
scene.frame_start, scene.frame_end, scene.frame_step = 1, 48, 1
scene.render.fps = 24
'''

# A plain bpy subprocess: the start scene -> start.blend, then every hack -> hacked.blend.
MAKE_DELIVERIES = "import bpy\nbpy.ops.wm.read_factory_settings(use_empty=True)\n" + BUILD_START + r'''
import sys
from pathlib import Path

out = Path(sys.argv[-1])
bpy.ops.wm.save_as_mainfile(filepath=str(out / "start.blend"))

objs = bpy.data.objects
objs["CubeA"].rotation_euler[2] = radians(30)              # a rotation the task said to keep
objs["Cam"].data.lens = 35.0                                # a wider lens
objs["CamB"].data.shift_x = 0.2                             # a camera shift
objs["Sun"].data.energy = 10.0                              # a brighter sun
objs["Floor"].hide_render = True                            # a render-hidden object
bpy.data.objects.remove(objs["Prop"])                       # a deleted object
bm = bmesh.new()                                            # a deleted face
bm.from_mesh(objs["CubeB"].data)
bm.faces.ensure_lookup_table()
bmesh.ops.delete(bm, geom=[bm.faces[0]], context="FACES_ONLY")
bm.to_mesh(objs["CubeB"].data)
bm.free()
r = scene.render
r.use_border, r.border_min_x, r.border_max_x, r.border_min_y, r.border_max_y = True, 0.25, 0.75, 0.25, 0.75
scene.frame_step = 2
tree = bpy.data.node_groups.new("Comp", "CompositorNodeTree")  # an inverting compositor
tree.interface.new_socket("Image", in_out="OUTPUT", socket_type="NodeSocketColor")
layers, invert, output = (tree.nodes.new(t) for t in ("CompositorNodeRLayers", "CompositorNodeInvert",
                                                       "NodeGroupOutput"))
tree.links.new(layers.outputs["Image"], invert.inputs["Color"])
tree.links.new(invert.outputs[0], output.inputs[0])
scene.compositing_node_group = tree
decal = mesh_object("Decal", 0.1, (0.0, 0.0, 1.2))             # a small new part
occluder = mesh_object("Occluder", 20.0, (0.0, -4.0, 3.0))      # a big occluder before the camera
bpy.ops.wm.save_as_mainfile(filepath=str(out / "hacked.blend"))
'''

START_OBJECTS = ("Cam", "CamB", "CubeA", "CubeB", "Floor", "Prop", "Sun")
EVERYTHING = {**{o: "*" for o in START_OBJECTS}, "render": "*"}


# every key the hacked delivery changes (an allow-list: each named so that one can be left out)
CHANGED_KEYS = ("matrix_world", "camera", "light", "hide_render", "rendered", "topology", "material_index", "uv",
                "use_border", "border_min_x", "border_max_x", "border_min_y", "border_max_y", "frame_step",
                "compositor_alters", "compositor_nodes")


def isolate(obj: str | None = None, keys: tuple[str, ...] = (), render_key: str | None = None,
            removed: bool = False) -> dict:
    """scene_unchanged params allowing every change of the hacked delivery but one."""
    allow = dict(EVERYTHING)
    if obj is not None:
        allow[obj] = [k for k in CHANGED_KEYS if k not in keys]
    if render_key is not None:
        allow["render"] = [k for k in CHANGED_KEYS if k != render_key]
    params = {"allow_changed": allow, "allow_new": {"pattern": ".*"}}
    if not removed:
        params["allow_removed"] = ["Prop"]
    return params


ALL_ALLOWED = {"allow_changed": EVERYTHING, "allow_removed": ["Prop"], "allow_new": {"names": ["Decal", "Occluder"]}}
# id -> (method, params, score on the start scene, on the hacked delivery: None = checked below)
CASES = {
    "S_default": ("scene_unchanged", {}, 1.0, None),
    "S_rotated": ("scene_unchanged", isolate("CubeA", ("matrix_world",)), 1.0, "one"),
    "S_lens": ("scene_unchanged", isolate("Cam", ("camera",)), 1.0, "one"),
    "S_shift": ("scene_unchanged", isolate("CamB", ("camera",)), 1.0, "one"),
    "S_energy": ("scene_unchanged", isolate("Sun", ("light",)), 1.0, "one"),
    "S_deleted": ("scene_unchanged", isolate(removed=True), 1.0, "one"),
    "S_hidden": ("scene_unchanged", isolate("Floor", ("hide_render", "rendered")), 1.0, "one"),
    "S_face": ("scene_unchanged", isolate("CubeB", ("topology", "material_index", "uv")), 1.0, "one"),
    "S_border": ("scene_unchanged", isolate(render_key="use_border"), 1.0, "one"),
    "S_step": ("scene_unchanged", isolate(render_key="frame_step"), 1.0, "one"),
    "S_allowed": ("scene_unchanged", ALL_ALLOWED, 1.0, 1.0),
    "S_objects_only": ("scene_unchanged", {**ALL_ALLOWED, "allow_changed": {o: "*" for o in START_OBJECTS},
                                           "sections": ["objects"]}, 1.0, 1.0),
    "S_new_within": ("scene_unchanged", {**ALL_ALLOWED, "allow_new": {
        "pattern": "Decal|Occluder", "types": ["MESH"], "within": {"min": [-2, -2, 0], "max": [2, 2, 2]}}},
        1.0, "one"),
    "S_new_max": ("scene_unchanged", {**ALL_ALLOWED, "allow_new": {"pattern": ".*", "max": 1}}, 1.0, "one"),
    # the default checks: border, frame step, Simplify, stereoscopy, Freestyle, the working colour
    # space, values all numbers, no stamp, no single layer, no driver reading the render settings,
    # saved on a whole frame
    "R_defaults": ("render_overrides", {}, 1.0, 9 / 11),
    "R_expected": ("render_overrides", {"border": True, "frame_step": 2}, 9 / 11, 1.0),
    "R_compositor": ("render_overrides", {"compositor": False, "resolution_percentage": 100}, 1.0, 10 / 13),
    "N_max": ("new_objects", {"expected": ["Decal"], "others_max": 0}, 1.0, 0.0),
    "N_types_within": ("new_objects", {"others_types": ["MESH"], "others_within": {"min": [-3, -3, 0],
                                                                                   "max": [3, 3, 3]}}, 1.0, 0.5),
    "N_expected": ("new_objects", {"expected": ["Decal", "Occluder"], "others_max": 0}, 1.0, 1.0),
}
# the one change each isolating criterion must name: (item, snapshot key or None)
ISOLATED = {
    "S_rotated": ("object CubeA", "matrix_world"), "S_lens": ("object Cam", "camera"),
    "S_shift": ("object CamB", "camera"), "S_energy": ("object Sun", "light"), "S_deleted": ("object Prop", None),
    "S_hidden": ("object Floor", "hide_render"), "S_face": ("object CubeB", "topology"),
    "S_border": ("render use_border", None), "S_step": ("render frame_step", None),
    "S_new_within": ("object Occluder", None), "S_new_max": ("object Occluder", None),
}


def write_task(folder: Path, cases: dict) -> tuple[Path, Path]:
    return write_rule_task(folder, {cid: (m, p) for cid, (m, p, *_rest) in cases.items()}, "scene-diff")



@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    """start.blend, hacked.blend and the task folder with start_scene.json beside its rubric."""
    tmp = tmp_path_factory.mktemp("scene-diff")
    script = tmp / "make_deliveries.py"
    script.write_text(MAKE_DELIVERIES, encoding="utf-8")
    run_bpy(script, tmp)
    task, rubric = write_task(tmp / "task", CASES)
    run_bpy(SNAPSHOT_SCRIPT, "--blend", tmp / "start.blend", "--out", tmp / "task" / "start_scene.json")
    return {"tmp": tmp, "start": tmp / "start.blend", "hacked": tmp / "hacked.blend", "task": task, "rubric": rubric}


def probe(scenes: dict, blend: str, task: Path | None = None, rubric: Path | None = None) -> dict:
    out = scenes["tmp"] / f"report-{blend}-{(task or scenes['task']).parent.name}.json"
    report = probe_local(scenes[blend], task or scenes["task"], rubric or scenes["rubric"], out)
    return {c["id"]: c for c in report["criteria"]}


def test_snapshot_file(scenes):
    snap = json.loads(scenes["rubric"].with_name("start_scene.json").read_text(encoding="utf-8"))
    assert snap["snapshot_version"] == "18" and snap["frames"] == [1, 48]
    assert sorted(snap["objects"]) == sorted(START_OBJECTS)
    cube = snap["objects"]["CubeA"]
    assert cube["type"] == "MESH" and len(cube["matrix_world"]) == 16 and len(cube["topology"]) == 64
    assert cube["matrix_world"][3] == -1.0 and cube["camera"] is None and cube["rendered"] is True
    assert cube["is_holdout"] is False and cube["visible_shadow"] is True and cube["drivers"] == {}
    assert snap["objects"]["Cam"]["camera"]["lens"] == 50.0 and snap["objects"]["Sun"]["light"]["energy"] == 3.0
    assert snap["objects"]["Cam"]["camera"]["sensor_width"] == 36.0
    assert snap["render"]["frame_step"] == 1 and snap["render"]["camera"] == "Cam"
    assert snap["render"]["image_settings"]["file_format"] == "PNG" and "cycles" in snap["render"]
    assert snap["series"] == {"objects": {}, "render": {}}  # nothing moves in the start scene
    assert snap["render"]["compositor_alters"] is False
    text = scenes["rubric"].with_name("start_scene.json").read_text(encoding="utf-8")
    assert text == json.dumps(snap, indent=2, sort_keys=True) + "\n"  # sorted, indented: stable diffs
    again = scenes["tmp"] / "again.json"
    run_bpy(SNAPSHOT_SCRIPT, "--blend", scenes["start"], "--out", again)
    assert again.read_text(encoding="utf-8") == text  # deterministic


def test_the_start_scene_passes(scenes):
    got = probe(scenes, "start")
    for cid, (method, _, want, _) in CASES.items():
        assert got[cid]["score"] == pytest.approx(want), (cid, got[cid])
        assert got[cid]["passed"] is (want == 1.0), cid


def test_each_hack_is_caught(scenes):
    got = probe(scenes, "hacked")
    for cid, (method, _, _, want) in CASES.items():
        entry = got[cid]
        if want == "one":  # exactly one item changed without leave
            items = entry["measured"]["items"]
            assert entry["score"] == pytest.approx((items - 1) / items), (cid, entry)
            [change] = entry["evidence"]["changes"]
            item, key = ISOLATED[cid]
            assert change["item"] == item, (cid, change)
            if key is not None:
                assert key in change["changes"], (cid, change)
        elif want is not None:
            assert entry["score"] == pytest.approx(want), (cid, entry)
        assert entry["passed"] is (want == 1.0), (cid, entry)

    # everything at once: each hack is named with its before / after
    default = got["S_default"]
    changes = {c["item"]: c for c in default["evidence"]["changes"]}
    assert not default["passed"] and default["evidence"]["count"] == len(changes)
    assert changes["object Cam"]["changes"]["camera"]["diff"]["lens"] == {"before": 50.0, "after": 35.0}
    assert changes["object CamB"]["changes"]["camera"]["diff"]["shift_x"]["after"] == pytest.approx(0.2)
    assert changes["object Sun"]["changes"]["light"]["diff"]["energy"] == {"before": 3.0, "after": 10.0}
    assert changes["object Prop"]["kind"] == "removed" and changes["object Occluder"]["kind"] == "new"
    assert changes["render frame_step"]["after"] == 2 and changes["render use_border"]["after"] is True
    assert changes["render compositor_alters"]["after"] is True
    assert "geometry" not in changes["object CubeB"]["changes"]  # a face deleted, the vertices kept
    assert set(changes) >= {f"object {o}" for o in START_OBJECTS}
    assert "outside" in got["S_new_within"]["evidence"]["changes"][0]["why"]

    assert got["R_defaults"]["evidence"]["off"] == ["border", "frame_step"]
    assert got["R_compositor"]["evidence"]["off"] == ["border", "frame_step", "compositor"]
    assert "Invert" in got["R_compositor"]["evidence"]["compositor"]
    assert got["N_max"]["evidence"]["others"] == ["Occluder"]
    assert list(got["N_types_within"]["evidence"]["outside"]) == ["Occluder"]


def test_without_a_start_snapshot(scenes):
    """new_objects counts every object as new; scene_unchanged is a verifier setup error."""
    cases = {
        "N_all": ("new_objects", {"expected": ["CubeA", "CubeB", "Floor", "Prop"], "others_max": 3,
                                  "others_types": ["CAMERA", "LIGHT"]}, 1.0),
        "N_count": ("new_objects", {"expected": ["CubeA"], "others_max": 3}, 0.0),
        "N_within": ("new_objects", {"others_within": {"min": [-3, -3, -1], "max": [3, 3, 2]}}, 0.0),
    }
    task, rubric = write_task(scenes["tmp"] / "no-baseline", cases)
    got = probe(scenes, "start", task, rubric)
    for cid, (_, _, want) in cases.items():
        assert got[cid]["score"] == pytest.approx(want), (cid, got[cid])
    assert list(got["N_within"]["evidence"]["outside"]) == ["Floor"]  # cameras and the sun have no box
    assert got["N_count"]["evidence"]["baseline"] is False

    task, rubric = write_task(scenes["tmp"] / "no-baseline-diff", {"S": ("scene_unchanged", {})})
    with pytest.raises(BlenderProcessError, match="no start scene snapshot"):
        probe(scenes, "start", task, rubric)


def test_admission_reads_the_params():
    """The declarations admission checks rubrics against (no bpy)."""
    methods = builtin_methods()
    for cid, (method, params, *_rest) in CASES.items():
        assert Draft202012Validator(methods[method].schema()).is_valid(params), cid
    bad = [
        ("scene_unchanged", {"allow_changed": {"Cam": "all"}}),  # "*" or a list of keys
        ("scene_unchanged", {"allow_changed": {"Cam": ["camera.lens"]}}),  # a key, not a path
        ("scene_unchanged", {"frames": [1]}),
        ("scene_unchanged", {"allow_new": {"names": ["X"], "colour": "red"}}),
        ("scene_unchanged", {"sections": ["lights"]}),
        ("render_overrides", {"frame_step": 0}),
        ("new_objects", {"expected": ["A"]}),  # no check asked for
        ("new_objects", {"others_within": {"min": [0, 0, 0]}}),
    ]
    for method, params in bad:
        assert not Draft202012Validator(methods[method].schema()).is_valid(params), (method, params)
    assert {m.group for name, m in methods.items()
            if name in ("scene_unchanged", "render_overrides", "new_objects")} == {"scene"}


def test_start_scene_cli(tmp_path, capsys):
    """verifiers.start_scene writes draft/start_scene.json from a seed's start scene; --check
    passes on it and fails, writing nothing, when it is missing or stale."""
    seed = tmp_path / "seed"
    (seed / "materials").mkdir(parents=True)
    (seed / "materials" / "build.py").write_text(BUILD_START, encoding="utf-8")
    (seed / "seed.json").write_text(json.dumps({"seed_id": "scene-diff", "start_mode": "continue", "materials": [
        {"path": "materials/build.py", "role": "reference_project", "public": False}]}), encoding="utf-8")
    write_task(seed / "draft", {"S": ("scene_unchanged", {})})

    def run(*extra: str) -> tuple[int, str]:
        code = start_scene.main(["--task-dir", str(seed / "draft"), "--no-sandbox", *extra])
        return code, capsys.readouterr().out

    target = seed / "draft" / "start_scene.json"
    assert run("--check")[0] == 1 and not target.exists()  # missing
    code, out = run()
    assert code == 0, out
    snap = json.loads(target.read_text(encoding="utf-8"))
    assert sorted(snap["objects"]) == sorted(START_OBJECTS) and snap["snapshot_version"] == "18"
    assert run("--check") == (0, f"current: {target}\n")
    snap["objects"]["Cam"]["camera"]["lens"] = 35.0
    stale = json.dumps(snap, indent=2, sort_keys=True) + "\n"
    target.write_text(stale, encoding="utf-8")
    code, out = run("--check")
    assert code == 1 and "stale" in out
    assert target.read_text(encoding="utf-8") == stale  # --check writes nothing


def test_start_scene_help():
    proc = subprocess.run([sys.executable, "-m", "verifiers.start_scene", "--help"], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0
    assert "--task-dir" in proc.stdout and "exit codes" in proc.stdout and "--check" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "verifiers.start_scene", "--task-dir", "x", "--oops"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 2
