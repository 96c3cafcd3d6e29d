"""The gaming operators (verifiers/mutations.py) in real Blender: each applies (a criterion made
to see its change fails on the mutated scene and passes on the original), the delivery is
reverted between operators (same file, same report after), and an operator that does not fit
the task is refused with its reason.  One warm probe process runs them all, as calibration and
stage 05 do."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.probe_cases import write_rule_task

from sandbox.script_run import LOCAL
from verifiers import bpy_procs
from verifiers.mutation_testing import OPERATOR_NAMES, mutation_table
from verifiers.profiles import get_profile

pytestmark = pytest.mark.blender
VERIFIERS = Path(__file__).resolve().parents[2] / "verifiers"

SCENE = '''
import sys, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.frame_start, scene.frame_end = 1, 20

def box(name, size=1.0, loc=(0, 0, 0)):
    s = size / 2
    verts = [(x, y, z) for x in (-s, s) for y in (-s, s) for z in (-s, s)]
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    obj = bpy.data.objects.new(name, mesh)
    obj.location = loc
    scene.collection.objects.link(obj)
    return obj

paint = bpy.data.materials.new("Paint")
paint.use_nodes = True
paint.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.8, 0.1, 0.1, 1)
part = box("Part", 1.0, (0, 0, 0.5))
part.rotation_euler = (0, 0, 0.3)
part.data.materials.append(paint)
row = box("Row", 0.2, (3, 0, 0.1))
arr = row.modifiers.new("Array", "ARRAY")
arr.count, arr.relative_offset_displace = 3, (1.5, 0, 0)
arm = bpy.data.objects.new("Arm", None)
scene.collection.objects.link(arm)
helper = bpy.data.objects.new("Helper", None)
scene.collection.objects.link(helper)
helper.parent = arm
helper.location = (1, 0, 0)
mover = box("Mover", 0.3, (0, 3, 0.15))
for frame, x in ((1, 0.0), (20, 2.0)):
    mover.location.x = x
    mover.keyframe_insert("location", index=0, frame=frame)
    arm.rotation_euler.z = x
    arm.keyframe_insert("rotation_euler", index=2, frame=frame)
cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
cam.data.lens = 50
scene.collection.objects.link(cam)
scene.camera = cam
sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
sun.data.energy = 3.0
scene.collection.objects.link(sun)
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[-1])
'''

# operator -> (criterion id, method, params): a criterion that sees exactly that operator's change
WATCH = {
    "bbox_vertices": ("faces", "mesh_counts", {"object": "Part", "faces": 6}),
    "strip_faces": ("faces2", "mesh_counts", {"object": "Mover", "faces": 6}),
    "shrink_standins": ("verts", "mesh_counts", {"object": "Part", "vertices": 8}),
    "emission_lookalike": ("bsdf", "material_node_types", {"material": "Paint", "node_types": ["BSDF_PRINCIPLED"]}),
    "material_unused_slot": ("on_faces", "material_on_faces", {"object": "Part", "material": "Paint"}),
    "render_hidden": ("size", "dimensions", {"object": "Part", "expected": [1.2502, 1.2502, 1.0],
                                             "tolerance": 0.05}),
    "occluder": ("no_occluder", "object_count", {"name_prefix": "Occluder", "max": 0}),
    "junk_objects": ("no_junk", "object_count", {"name_prefix": "Junk", "max": 0}),
    "retime_keys": ("arrives", "value_at_frame", {"object": "Mover", "data_path": "location", "index": 0,
                                                   "frame": 20, "expected": 2.0, "tolerance": 1e-3}),
    "teleport_keys": ("midway", "value_at_frame", {"object": "Mover", "data_path": "location", "index": 0,
                                                    "frame": 8, "expected": 0.7, "tolerance": 0.35}),
    "reparent_helpers": ("chain", "parent_is", {"object": "Helper", "parent": "Arm"}),
    "transforms_to_parents": ("root", "parent_is", {"object": "Part", "parent": None}),
    "modifiers_applied": ("live", "modifier_settings", {"object": "Row", "type": "ARRAY"}),
    "modifiers_neutralised": ("offset", "modifier_settings", {"object": "Row", "type": "ARRAY",
                                                              "settings": {"use_relative_offset": True}}),
    "camera_override": ("lens", "camera_settings", {"object": "Cam", "lens": 50}),
    "light_override": ("power", "light_settings", {"object": "Sun", "type": "SUN", "energy": 3.0}),
    "render_override": ("border", "scene_settings", {"settings": {"render.use_border": False,
                                                                  "frame_step": 1}}),
}
# transforms_to_parents applies only where the rubric grades an object's own transform
OWN = ("own", "transforms_applied", {"object": "Row"})


def write_task(folder: Path, criteria: list[tuple[str, str, dict]], start_mode: str) -> tuple[Path, Path]:
    return write_rule_task(folder, {cid: (method, params) for cid, method, params in criteria}, "mutations",
                           start_mode=start_mode, core=True)


@pytest.fixture(scope="module")
def delivery(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("mutations")
    script = work / "scene.py"
    script.write_text(SCENE, encoding="utf-8")
    blend = work / "delivery.blend"
    subprocess.run([sys.executable, str(script), str(blend)], check=True, capture_output=True)
    # the delivery left camera and light as the start had them: its own snapshot is the start
    subprocess.run([sys.executable, str(VERIFIERS / "scene_snapshot.py"), "--blend", str(blend),
                    "--out", str(work / "start_scene.json")], check=True, capture_output=True)
    return blend


def test_every_operator_applies_and_the_delivery_is_reverted_between_them(delivery, tmp_path):
    task, rubric = write_task(tmp_path / "task", [*WATCH.values(), OWN], "continue")
    (tmp_path / "task" / "start_scene.json").write_bytes((delivery.parent / "start_scene.json").read_bytes())
    before = hashlib.sha256(delivery.read_bytes()).hexdigest()
    with bpy_procs.WarmProbe(sandbox=LOCAL) as probe:
        original = probe.probe(delivery, task, rubric, tmp_path / "before.json")
        rows = probe.mutate(delivery, task, rubric)
        again = probe.probe(delivery, task, rubric, tmp_path / "after.json")
    assert [r["operator"] for r in rows] == list(OPERATOR_NAMES)  # the stdlib list agrees with bpy's
    assert hashlib.sha256(delivery.read_bytes()).hexdigest() == before  # never written to
    assert [c["score"] for c in again["criteria"]] == [c["score"] for c in original["criteria"]]
    assert all(c["passed"] for c in original["criteria"]), [c for c in original["criteria"] if not c["passed"]]
    for row in rows:
        cid = WATCH[row["operator"]][0]
        assert row["applicable"] and row["error"] is None, row
        failed = {c["id"] for c in row["criteria"] if not c["passed"]}
        assert cid in failed, (row["operator"], failed)
    # reverted: an operator's change never reaches the next one's scene
    failed = {r["operator"]: {c["id"] for c in r["criteria"] if not c["passed"]} for r in rows}
    assert "no_occluder" not in failed["junk_objects"]  # the occluder came just before
    assert "bsdf" not in failed["material_unused_slot"]  # so did the emission look-alike
    assert failed["render_override"] == {"border"}  # the last one sees only its own change
    table = mutation_table(rows, get_profile("rule-only"), json.loads(task.read_text()), None)
    assert table["applicable"] == len(OPERATOR_NAMES) and table["killed"] == table["applicable"]
    assert table["score"] == 1.0 and table["survivors"] == []


def test_operators_that_do_not_fit_the_task_are_refused_with_the_reason(delivery, tmp_path):
    """From an empty start, a rubric on one static part: nothing keyframed, no helper, no own
    transform graded, no modifier on the part, nothing the task fixes."""
    task, rubric = write_task(tmp_path / "static", [WATCH["bbox_vertices"]], "from_scratch")
    with bpy_procs.WarmProbe(sandbox=LOCAL) as probe:
        rows = {r["operator"]: r for r in probe.mutate(delivery, task, rubric)}
    refused = {name: r["why"] for name, r in rows.items() if not r["applicable"]}
    assert set(refused) >= {"reparent_helpers", "transforms_to_parents", "camera_override", "light_override",
                            "render_override"}, refused
    assert "own transform" in refused["transforms_to_parents"]
    assert "start scene" in refused["camera_override"]
    assert all(r["criteria"] is None for r in rows.values() if not r["applicable"])
    # without a snapshot every render-visible geometry object is a part: Mover is keyframed
    assert rows["retime_keys"]["applicable"] and rows["bbox_vertices"]["applicable"]
    table = mutation_table(list(rows.values()), get_profile("rule-only"), json.loads(task.read_text()), None,
                           {"junk_objects": "the spec allows extra objects"})
    junk = next(r for r in table["operators"] if r["operator"] == "junk_objects")
    assert junk["allowed"] == "the spec allows extra objects" and "junk_objects" not in table["survivors"]
    assert "occluder" in table["survivors"]  # a rubric on one part's faces cannot see an occluder
