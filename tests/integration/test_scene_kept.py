"""scene_unchanged in real Blender, for what the snapshot covers since version 3 (issue 33, "kept
means kept"): a driver, a shape key that changes the result after frame 1, a material node
value, a rewired link, holdout and shadow-catcher flags, a spot light's size, an area light's
spread, a camera's roll, shift and sensor, a render setting the old list left out, and a change
only at a later frame.  Each delivery holds one change: it fails the default criterion (the
change named, with its frames when it is not at frame 1) and passes one whose allow-list names
exactly the keys it changes; the start scene passes both.  Blender runs unsandboxed (LOCAL):
everything it runs here is this test's own code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.probe_cases import probe_local, write_rule_task
from tests.bpy_forks import run_bpy_script

pytestmark = pytest.mark.blender

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT_SCRIPT = ROOT / "verifiers" / "scene_snapshot.py"

BUILD = r'''
import bpy
import bmesh
import sys
from math import radians
from pathlib import Path

bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
bm = bmesh.new()
bmesh.ops.create_cube(bm, size=1.0)
mesh = bpy.data.meshes.new("Box")
bm.to_mesh(mesh)
bm.free()
box = bpy.data.objects.new("Box", mesh)
box.location = (0.0, 0.0, 0.5)
scene.collection.objects.link(box)
box.shape_key_add(name="Basis")
bulge = box.shape_key_add(name="Bulge")
bulge.value = 0.0
for point in bulge.data:
    point.co *= 1.5
mat = bpy.data.materials.new("Paint")
tree = mat.node_tree
bsdf = tree.nodes["Principled BSDF"]
bsdf.inputs["Roughness"].default_value = 0.5
value = tree.nodes.new("ShaderNodeValue")
value.name = "Sheen"
value.outputs[0].default_value = 0.3
tree.links.new(value.outputs[0], bsdf.inputs["Coat Weight"])
box.data.materials.append(mat)
cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
cam.location, cam.rotation_euler = (0.0, -6.0, 2.0), (radians(75), 0.0, 0.0)
scene.collection.objects.link(cam)
scene.camera = cam
spot = bpy.data.objects.new("Spot", bpy.data.lights.new("Spot", "SPOT"))
spot.location = (2.0, -2.0, 4.0)
scene.collection.objects.link(spot)
area = bpy.data.objects.new("Area", bpy.data.lights.new("Area", "AREA"))
area.location = (-2.0, -2.0, 4.0)
scene.collection.objects.link(area)
# a rig, in its rest pose, that a Post follows as a parent deform (parent type Armature: a
# virtual Armature modifier; the Post has no modifier and no shape key)
bm = bmesh.new()
bmesh.ops.create_cube(bm, size=1.0)
post = bpy.data.objects.new("Post", bpy.data.meshes.new("Post"))
bm.to_mesh(post.data)
bm.free()
post.location = (3.0, 0.0, 0.5)
scene.collection.objects.link(post)
rig = bpy.data.objects.new("Rig", bpy.data.armatures.new("Rig"))
scene.collection.objects.link(rig)
bpy.context.view_layer.objects.active = rig
bpy.ops.object.mode_set(mode="EDIT")
bone = rig.data.edit_bones.new("Bone")
bone.head, bone.tail = (3.0, 0.0, 0.0), (3.0, 0.0, 1.0)
bpy.ops.object.mode_set(mode="OBJECT")
post.vertex_groups.new(name="Bone").add(range(8), 1.0, "REPLACE")
post.parent, post.parent_type = rig, "ARMATURE"
scene.render.engine = "CYCLES"
scene.frame_start, scene.frame_end = 1, 10

out = Path(sys.argv[-1])
bpy.ops.wm.save_as_mainfile(filepath=str(out / "start.blend"))
objs = bpy.data.objects


def keyed(ident, path, frames_values):
    for frame, value in frames_values:
        setattr(ident, path, value) if not isinstance(value, tuple) else getattr(ident, path).__setitem__(
            slice(None), value)
        ident.keyframe_insert(path, frame=frame)


def change(name):
    if name == "driver_late":  # a driver that narrows the lens from frame 5
        fc = objs["Cam"].data.driver_add("lens")
        fc.driver.type = "SCRIPTED"
        fc.driver.expression = "50 if frame < 5 else 35"
    elif name == "shape_key_late":  # the bulge keyed in after frame 1
        kb = objs["Box"].data.shape_keys.key_blocks["Bulge"]
        kb.value = 0.0
        kb.keyframe_insert("value", frame=1)
        kb.value = 1.0
        kb.keyframe_insert("value", frame=10)
    elif name == "node_value":
        bpy.data.materials["Paint"].node_tree.nodes["Principled BSDF"].inputs["Roughness"].default_value = 0.9
    elif name == "link_rewired":
        tree = bpy.data.materials["Paint"].node_tree
        tree.links.remove(tree.nodes["Sheen"].outputs[0].links[0])
        tree.links.new(tree.nodes["Sheen"].outputs[0], tree.nodes["Principled BSDF"].inputs["Metallic"])
    elif name == "holdout":
        objs["Box"].is_holdout = True
    elif name == "shadow_catcher":
        objs["Box"].is_shadow_catcher = True
    elif name == "spot_size":
        objs["Spot"].data.spot_size = 1.2
    elif name == "spread":
        objs["Area"].data.spread = 0.5
    elif name == "camera_roll":
        objs["Cam"].rotation_euler[1] = radians(12)
    elif name == "camera_shift_sensor":
        objs["Cam"].data.shift_y = 0.1
        objs["Cam"].data.sensor_width = 24.0
    elif name == "render_setting":  # settings the version-2 snapshot did not read
        scene.cycles.samples = 8
        scene.render.filter_size = 3.0
    elif name == "deform_late":  # the rig's bone stretches the Post from frame 2 on
        pose = objs["Rig"].pose.bones["Bone"]
        pose.keyframe_insert("scale", frame=1)
        pose.scale = (1.0, 2.0, 1.0)
        pose.keyframe_insert("scale", frame=2)
    elif name == "move_late":  # in place at frame 1, elsewhere from frame 2
        box = objs["Box"]
        box.keyframe_insert("location", frame=1)
        box.location.x = 2.0
        box.keyframe_insert("location", frame=8)


for name in sys.argv[-2].split(","):
    bpy.ops.wm.open_mainfile(filepath=str(out / "start.blend"))
    scene = bpy.context.scene
    objs = bpy.data.objects
    change(name)
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))
'''

# delivery -> (item its change is named under, {object or "render": the keys it changes}, frames or None:
# the change shows only from a later frame, first of them)
DELIVERIES = {
    "driver_late": ("object Cam", {"Cam": ["camera", "drivers"]}, 5),
    "shape_key_late": ("object Box", {"Box": ["shape_keys", "geometry", "world_mesh"]}, 2),
    "node_value": ("object Box", {"Box": ["materials"]}, None),
    "link_rewired": ("object Box", {"Box": ["materials"]}, None),
    "holdout": ("object Box", {"Box": ["is_holdout", "rendered"]}, None),
    "shadow_catcher": ("object Box", {"Box": ["is_shadow_catcher", "rendered"]}, None),
    "spot_size": ("object Spot", {"Spot": ["light"]}, None),
    "spread": ("object Area", {"Area": ["light"]}, None),
    "camera_roll": ("object Cam", {"Cam": ["matrix_world"]}, None),
    "camera_shift_sensor": ("object Cam", {"Cam": ["camera"]}, None),
    "render_setting": ("render cycles", {"render": ["cycles", "filter_size"]}, None),
    "move_late": ("object Box", {"Box": ["animation", "matrix_world", "world_mesh"]}, 2),
}
RIG_ONLY = ["deform_late"]  # built with the others; its change is the Rig's and, through it, the Post's


@pytest.fixture(scope="module")
def kept(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("scene-kept")
    script = tmp / "build.py"
    script.write_text(BUILD, encoding="utf-8")
    proc = run_bpy_script(script, ",".join([*DELIVERIES, *RIG_ONLY]), tmp)
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc = run_bpy_script(str(SNAPSHOT_SCRIPT), "--blend", str(tmp / "start.blend"), "--out",
                           str(tmp / "start_scene.json"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {"tmp": tmp, "snap": json.loads((tmp / "start_scene.json").read_text(encoding="utf-8"))}


def grade(kept: dict, blend: str, allow: dict) -> dict:
    folder = kept["tmp"] / f"task-{blend}"
    task, rubric = write_rule_task(folder, {"D": ("scene_unchanged", {}),
                                            "A": ("scene_unchanged", {"allow_changed": allow})}, "scene-kept")
    (folder / "start_scene.json").write_text(json.dumps(kept["snap"]), encoding="utf-8")
    report = probe_local(kept["tmp"] / f"{blend}.blend", task, rubric,
                                   kept["tmp"] / f"report-{blend}.json")
    return {c["id"]: c for c in report["criteria"]}


def test_the_start_snapshot(kept):
    snap = kept["snap"]
    assert snap["snapshot_version"] == "18" and snap["frames"] == [1, 10]
    box = snap["objects"]["Box"]
    assert [b["name"] for b in box["shape_keys"]["blocks"]] == ["Basis", "Bulge"]
    assert box["materials"][0][1] == "Paint" and box["is_shadow_catcher"] is False
    graph = snap["material_graphs"]["Paint"]["node_tree"]
    assert graph["nodes"]["Sheen"]["outputs"]["0:Value"] == 0.3
    assert ["Sheen", "Value", "Principled BSDF", "Coat Weight", False, True] in graph["links"]
    assert snap["objects"]["Area"]["light"]["spread"] == pytest.approx(3.14159, abs=1e-4)
    assert snap["render"]["cycles"]["samples"] > 8 and snap["render"]["engine"] == "CYCLES"


def test_the_start_scene_passes(kept):
    got = grade(kept, "start", {"Box": ["materials"]})
    assert got["D"]["passed"] and got["A"]["passed"], (got["D"]["detail"], got["A"]["detail"])
    assert got["D"]["measured"]["frames"] == [1, 10]


@pytest.mark.parametrize("delivery", sorted(DELIVERIES))
def test_each_change_fails_unless_allowed(kept, delivery):
    item, allow, late = DELIVERIES[delivery]
    got = grade(kept, delivery, allow)
    default, allowed = got["D"], got["A"]
    assert not default["passed"] and default["score"] < 1.0, default
    changes = default["evidence"]["changes"]
    if item.startswith("render"):
        assert {c["item"] for c in changes} == {f"render {k}" for k in allow["render"]}, changes
    else:
        [change] = changes
        assert change["item"] == item, change
        assert set(change["changes"]) == set(allow[item.split()[1]]), change
        if late is not None:  # frame 1 as started: the change is named at the frames it shows
            frames = [c["frames"] for c in change["changes"].values() if "frames" in c]
            assert frames and min(f[0] for f in frames) == late, change
            assert all("before" not in c and "diff" not in c for k, c in change["changes"].items()
                       if k in ("geometry", "matrix_world")), change
    assert allowed["passed"] and allowed["score"] == 1.0, allowed["detail"]
    assert allowed["measured"]["allowed_changes"], allowed


def test_evidence_names_what_changed(kept):
    """The evidence names the changed value inside a key: a node input, a link, a light's size."""
    got = grade(kept, "node_value", {})
    [change] = got["D"]["evidence"]["changes"]
    graphs = change["changes"]["materials"]["graphs"]["Paint"]
    path = "node_tree.nodes.Principled BSDF.inputs.2:Roughness"
    assert graphs[path] == {"before": 0.5, "after": 0.9}, graphs
    got = grade(kept, "link_rewired", {})
    links = got["D"]["evidence"]["changes"][0]["changes"]["materials"]["graphs"]["Paint"]
    assert any(p.startswith("node_tree.links") for p in links), links
    got = grade(kept, "spot_size", {})
    diff = got["D"]["evidence"]["changes"][0]["changes"]["light"]["diff"]
    assert diff["spot_size"]["after"] == pytest.approx(1.2), diff
    got = grade(kept, "render_setting", {})
    items = {c["item"]: c for c in got["D"]["evidence"]["changes"]}
    assert items["render cycles"]["diff"]["samples"]["after"] == 8
    assert items["render filter_size"]["after"] == 3.0


def test_a_frames_window(kept):
    """``frames`` narrows the compared frames: the lens driver acts from frame 5 only."""
    folder = kept["tmp"] / "task-window"
    cases = {"Early": ("scene_unchanged", {"frames": [1, 4]}), "Late": ("scene_unchanged", {"frames": [4, 10]})}
    task, rubric = write_rule_task(folder, cases, "scene-kept")
    (folder / "start_scene.json").write_text(json.dumps(kept["snap"]), encoding="utf-8")
    report = probe_local(kept["tmp"] / "driver_late.blend", task, rubric, kept["tmp"] / "report-w.json")
    got = {c["id"]: c for c in report["criteria"]}
    # the driver itself is a change at every frame (the drivers key); the lens only from frame 5
    early = got["Early"]["evidence"]["changes"][0]["changes"]
    late = got["Late"]["evidence"]["changes"][0]["changes"]
    assert "camera" not in early and "drivers" in early, early
    assert late["camera"]["frames"][0] == 5 and "before" not in late["camera"], late


def test_a_shape_changed_by_a_parent_deform_after_frame_1(kept):
    """A mesh with no modifier and no shape key still changes shape when its parent deforms it:
    the rig stretches the Post from frame 2; allowing the rig's change does not allow the Post's."""
    got = grade(kept, "deform_late", {"Rig": ["animation", "pose"]})
    items = {c["item"]: c["changes"] for c in got["D"]["evidence"]["changes"]}
    assert not got["D"]["passed"] and items["object Post"]["geometry"]["frames"][0] == 2, items
    assert not got["A"]["passed"], got["A"]["detail"]
    [change] = got["A"]["evidence"]["changes"]
    assert change["item"] == "object Post" and change["changes"]["geometry"]["frames"][0] == 2, change


def test_what_a_task_lets_move_is_not_read_and_what_it_keeps_still_is(kept):
    """A key the comparison allows whatever it becomes (a moving part's world-space surface at
    every frame) is left unread; the keys it does not allow are judged as before: a box let
    move may move, the same box's shape bulging after frame 1 still fails."""
    moved = grade(kept, "move_late", {"Box": ["animation", "matrix_world"]})
    assert moved["A"]["passed"], moved["A"]["detail"]
    assert moved["A"]["measured"]["allowed_changes"] == ["Box (animation, matrix_world)"], moved["A"]["measured"]
    bulged = grade(kept, "shape_key_late", {"Box": ["matrix_world", "shape_keys"]})
    assert not bulged["A"]["passed"], bulged["A"]["detail"]
    [change] = bulged["A"]["evidence"]["changes"]
    assert change["item"] == "object Box" and set(change["changes"]) == {"geometry"}, change
    assert change["changes"]["geometry"]["frames"][0] == 2, change
