"""Render truth in real Blender: the probe measures the scene as a render of the delivered file
evaluates it (verifiers/probe_core.py ``render_probe``), and a size or a box must hold for what
the viewport shows as well (red team 6: a viewport-only Array).

One scene holds a pair per trick -- a part the render shows as it looks in the viewport, and one
that a render-only (or viewport-only) setting changes: an Array shown in render only, a
Subdivision with render levels, a Geometry Nodes ``Is Viewport`` switch that deletes the part in
render, holdout / shadow-catcher / camera-invisible parts, an indirect-only, a holdout and an
excluded collection, an instancer's child, a driver and a shape key that move or crush a part
after frame 1.  Every case is a criterion of one rubric that grades frames 1..5; each is checked
to pass or fail.  A scene with no view layer enabled for rendering scores 0 everywhere; a scene
without a camera is measured without an object being added to it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.probe_cases import probe_local, write_rule_task
from tests.bpy_forks import run_bpy_script


pytestmark = pytest.mark.blender

ROOT = Path(__file__).resolve().parents[2]

SCENE = r'''
import sys
import bpy
out, mode = sys.argv[1], sys.argv[2]
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o)
scene = bpy.context.scene
scene.frame_start, scene.frame_end = 1, 5
FACES = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]


def box(name, x, size=1.0, coll=None):
    h = size / 2
    verts = [(x - h, -h, 0), (x + h, -h, 0), (x + h, h, 0), (x - h, h, 0),
             (x - h, -h, size), (x + h, -h, size), (x + h, h, size), (x - h, h, size)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], FACES)
    mesh.update()
    o = bpy.data.objects.new(name, mesh)
    (coll or scene.collection).objects.link(o)
    return o


box("Plain", 0.0)
arr = box("RenderArray", 3.0).modifiers.new("More", "ARRAY")   # three boxes in the render only
arr.count, arr.show_viewport = 3, False
arr2 = box("ViewportArray", 6.0).modifiers.new("More", "ARRAY")  # three in the viewport only
arr2.count, arr2.show_render = 3, False
sub = box("RenderSubdiv", 9.0).modifiers.new("Smooth", "SUBSURF")  # a cube in the viewport, a blob rendered
sub.levels, sub.render_levels = 0, 3

# Geometry Nodes: Is Viewport switches between the mesh and nothing -- gone in a render
gn = box("ViewportOnly", 12.0).modifiers.new("Trick", "NODES")
tree = bpy.data.node_groups.new("Trick", "GeometryNodeTree")
tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
n_in, n_out = tree.nodes.new("NodeGroupInput"), tree.nodes.new("NodeGroupOutput")
is_vp, switch = tree.nodes.new("GeometryNodeIsViewport"), tree.nodes.new("GeometryNodeSwitch")
switch.input_type = "GEOMETRY"
tree.links.new(is_vp.outputs[0], switch.inputs["Switch"])
tree.links.new(n_in.outputs[0], switch.inputs["True"])
tree.links.new(switch.outputs[0], n_out.inputs[0])
gn.node_group = tree

box("Holdout", 15.0).is_holdout = True
box("Catcher", 18.0).is_shadow_catcher = True
box("NoCamera", 21.0).visible_camera = False
for name, flag in (("Indirect", "indirect_only"), ("HoldoutColl", "holdout"), ("Excluded", "exclude")):
    coll = bpy.data.collections.new(name)
    scene.collection.children.link(coll)
    box(name + ".Part", 24.0 + 3 * len(coll.name), coll=coll)
    setattr(bpy.context.view_layer.layer_collection.children[name], flag, True)

plane = box("Instancer", 40.0)
plane.instance_type = "VERTS"
child = box("InstancedChild", 40.0, 0.1)  # the render shows its copies on the vertices, not itself
child.parent = plane

drift = box("Drift", 45.0)  # a driver lifts it from frame 2 on (a simple expression: no Python)
fc = drift.driver_add("location", 2)
fc.driver.type, fc.driver.expression = "SCRIPTED", "(frame > 1) * 5"

crush = box("Crush", 48.0)  # a shape key flattens it from frame 2 on
crush.shape_key_add(name="Basis")
key = crush.shape_key_add(name="Flat")
for v in key.data:
    v.co.z *= 0.1
key.value = 0.0
key.keyframe_insert("value", frame=1)
key.value = 1.0
key.keyframe_insert("value", frame=2)

# no modifier, no shape key: parented to a rig with parent type Armature (a virtual Armature
# modifier), its bone stretches it from frame 2 on
stretch = box("Stretch", 51.0)
rig = bpy.data.objects.new("Rig", bpy.data.armatures.new("Rig"))
scene.collection.objects.link(rig)
bpy.context.view_layer.objects.active = rig
bpy.ops.object.mode_set(mode="EDIT")
bone = rig.data.edit_bones.new("Bone")
bone.head, bone.tail = (51.0, 0.0, 0.0), (51.0, 0.0, 1.0)
bpy.ops.object.mode_set(mode="OBJECT")
stretch.vertex_groups.new(name="Bone").add(range(8), 1.0, "REPLACE")
stretch.parent, stretch.parent_type = rig, "ARMATURE"
pose = rig.pose.bones["Bone"]
pose.keyframe_insert("scale", frame=1)
pose.scale = (1.0, 3.0, 1.0)
pose.keyframe_insert("scale", frame=2)

if mode == "camera":
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    scene.collection.objects.link(cam)
    scene.camera = cam
if mode == "no-layer":
    for vl in scene.view_layers:
        vl.use = False
scene.frame_set(1)
bpy.ops.wm.save_as_mainfile(filepath=out)
'''

ONE = [1.0, 1.0, 1.0]
CASES = {
    "R01": ("dimensions", {"object": "Plain", "expected": ONE, "tolerance": 0.001}, True),
    # the render's three boxes, not the viewport's one
    "R02": ("dimensions", {"object": "RenderArray", "expected": ONE, "tolerance": 0.001}, False),
    # a size holds in the viewport and in a render (red team 6): neither the render's three boxes
    # (the viewport shows one) nor the viewport's three (the render shows one) pass as sizes ...
    "R03": ("dimensions", {"object": "RenderArray", "expected": [3.0, 1.0, 1.0], "tolerance": 0.001}, False),
    "R04": ("dimensions", {"object": "ViewportArray", "expected": ONE, "tolerance": 0.001}, False),
    # ... while a count reads the render alone: the render's three boxes, the viewport's one
    "R31": ("mesh_counts", {"object": "RenderArray", "vertices": 24}, True),
    "R32": ("mesh_counts", {"object": "ViewportArray", "vertices": 8}, True),
    "R05": ("mesh_counts", {"object": "RenderSubdiv", "vertices": 8}, False),
    "R06": ("mesh_counts", {"object": "RenderSubdiv", "vertices": {"min": 300}}, True),
    "R07": ("solid_parts", {"object": "ViewportOnly"}, False),
    "R08": ("objects_exist", {"objects": ["Holdout"]}, True),  # it exists ...
    "R09": ("solid_parts", {"object": "Holdout"}, False),       # ... but the render shows a hole
    "R10": ("solid_parts", {"object": "Catcher"}, False),
    "R11": ("solid_parts", {"object": "NoCamera"}, False),
    "R12": ("solid_parts", {"object": "Indirect.Part"}, False),
    "R13": ("solid_parts", {"object": "HoldoutColl.Part"}, False),
    "R14": ("solid_parts", {"object": "Excluded.Part"}, False),
    "R15": ("solid_parts", {"object": "InstancedChild"}, False),
    "R16": ("solid_parts", {"object": "Plain"}, True),
    # right at frame 1; the rubric grades 1..5 (R19), where the driver lifts it
    "R17": ("object_min_z", {"object": "Drift", "expected": 0.0, "tolerance": 0.001, "frame": 1}, False),
    "R18": ("dimensions", {"object": "Crush", "expected": ONE, "tolerance": 0.001, "frame": 1}, False),
    "R20": ("dimensions", {"object": "Stretch", "expected": ONE, "tolerance": 0.001, "frame": 1}, False),
    "R19": ("stays_in_place", {"objects": {"Plain": [0.0, 0.0, 0.0]}, "tolerance": 0.001,
                               "frame_start": 1, "frame_end": 5, "frame_step": 4}, True),
}


def build(tmp: Path, mode: str) -> Path:
    script, blend = tmp / "scene.py", tmp / f"render-truth-{mode}.blend"
    script.write_text(SCENE)
    proc = run_bpy_script(str(script), str(blend), mode)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return blend


@pytest.fixture(scope="module")
def task(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("render-truth")
    write_rule_task(tmp, {cid: (m, p) for cid, (m, p, _) in CASES.items()}, "render-truth")
    return tmp


def grade(task: Path, blend: Path) -> dict:
    report = probe_local(blend, task / "task.json", task / "rubric.json", task / f"{blend.stem}.json")
    return {c["id"]: c for c in report["criteria"]}


@pytest.fixture(scope="module")
def graded(task, tmp_path_factory) -> dict:
    return grade(task, build(tmp_path_factory.mktemp("scene"), "no-camera"))


@pytest.mark.parametrize("cid", sorted(CASES))
def test_case_passes_or_fails_as_a_render_shows_it(graded, cid):
    method, _, want = CASES[cid]
    entry = graded[cid]
    assert entry["method"] == method
    assert entry["passed"] is want, entry


def test_each_render_only_trick_has_a_passing_twin():
    passing = {p.get("object") for m, p, ok in CASES.values() if ok}
    assert {"Plain", "RenderArray", "ViewportArray", "RenderSubdiv"} <= passing


def test_hidden_parts_are_named_as_hidden_from_render(graded):
    for cid in ("R09", "R10", "R11", "R12", "R13", "R14", "R15"):
        assert graded[cid]["detail"].startswith("object(s) hidden from render"), graded[cid]


def test_a_later_frame_is_named(graded):
    drift = graded["R17"]
    assert drift["detail"].startswith("at frame 2 ") and drift["evidence"]["frame"] == 2, drift
    assert drift["evidence"]["graded_frames"] == 5
    assert graded["R18"]["evidence"]["frame"] == 2
    assert graded["R20"]["evidence"]["frame"] == 2  # a parent deform changes the shape, not the matrix


def test_a_scene_with_a_camera_grades_the_same(task, tmp_path):
    with_camera = grade(task, build(tmp_path, "camera"))
    assert {cid: e["passed"] for cid, e in with_camera.items()} == {cid: want for cid, (_, _, want) in CASES.items()}


def test_no_view_layer_rendering_scores_zero(task, tmp_path):
    got = grade(task, build(tmp_path, "no-layer"))
    assert all(e["score"] == 0.0 and "the render shows nothing" in e["detail"] for e in got.values()), got


def test_the_probe_leaves_no_object_behind(tmp_path):
    """The camera lent to a camera-less scene is not in the scene the criteria read."""
    blend = build(tmp_path, "no-camera")
    script = tmp_path / "count.py"
    script.write_text(
        "import json, sys\nimport bpy\n"
        f"sys.path.insert(0, {str(ROOT / 'verifiers')!r})\n"
        "from probe_core import render_probe\n"
        f"bpy.ops.wm.open_mainfile(filepath={str(blend)!r}, use_scripts=False)\n"
        "names = render_probe(bpy.context.scene, None, lambda p: sorted(o.name for o in p.scene.objects))\n"
        "after = sorted(o.name for o in bpy.data.objects)\n"
        "print(json.dumps({'inside': names, 'after': after, 'camera': bpy.context.scene.camera}))\n")
    proc = run_bpy_script(str(script))
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "arkevo probe camera" not in got["inside"] and "arkevo probe camera" not in got["after"]
    assert got["camera"] is None and "Plain" in got["inside"]
