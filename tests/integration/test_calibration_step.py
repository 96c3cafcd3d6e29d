"""The calibration step in real Blender for both bundled seeds, under blender-70-30 with the
image-metric judge, rule-only and kuka-80-20; plus the probe library's newer primitives, a
task's own probe, and the packaged verifier running under RewardKit. Blender runs in the trial
sandbox, as the calibration CLI runs it (test slot users, a temporary base folder).

table-model is calibrated in full: its samples, its gaming samples and every operator, judged
under each profile, and it may be frozen. robot-carry -- an animation, whose evidence is 16
frames and an MP4 -- is calibrated without mutation testing (`mutate=False`, ~80 CPU-s of its
100 operators over 250 frames), and so shows the other rule: a grader no operator attacked is
never frozen, whatever its samples say. Its grader meets all 146 operators in its own production
(tests/integration/test_task_production.py, stage 05, under its own kuka-80-20) and in `make
demo`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox.isolation.settings import SandboxSettings
from tests.adversarial.sandbox_helpers import requires_landlock, sandbox_kwargs
from tests.seed_copies import keep_calibration_scripts
from verifiers import bpy_procs
from verifiers.calibration import CalibrationFailed, calibrate, judge_profile
from verifiers.evidence import EvidenceCache, sha256_file
from verifiers.profiles import get_profile, task_with_profile
from verifiers.scorer import ScoreOptions, Scorer, TaskBundle
from verifiers.version import REWARDKIT_FILES

pytestmark = [pytest.mark.blender, requires_landlock]

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ("robot-carry", "table-model")
PROFILES = ("blender-70-30", "rule-only", "kuka-80-20")
MARGIN = 0.2
UNATTACKED = ("robot-carry",)  # calibrated with mutate=False: see the module's docstring
NOT_ATTACKED = "mutation testing did not run (no reference delivery, or mutate=False)"


@pytest.fixture(scope="module")
def isolation(tmp_path_factory) -> SandboxSettings:
    return SandboxSettings(**sandbox_kwargs(tmp_path_factory.mktemp("cal-sandbox")))


# robot-carry's samples this step renders and judges: the two defects the tests below read, its
# variant and two gaming samples (every sample of every bundled seed is probed by
# test_blender_calibration.py, and calibrated in full by `make demo`); each rendered sample is an
# animation of 16 frames and an MP4.
KEEP = {"robot-carry": {"defects": ("drop_from_height.py", "late_finish.py"),
                        "gaming": ("gripper_copies_box.py", "gripper_keyed_off_wrist.py")}}


def draft_of(seed: str, tmp: Path) -> Path:
    if seed not in KEEP:
        return ROOT / "seeds" / seed / "draft"
    copy = tmp / seed
    shutil.copytree(ROOT / "seeds" / seed, copy)
    keep_calibration_scripts(copy / "draft", KEEP[seed])
    return copy / "draft"


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory, isolation) -> dict:
    cache = EvidenceCache(tmp_path_factory.mktemp("cal-cache"))
    out = {}
    for seed in SEEDS:  # one seed at a time: at most 2 bpy processes
        out[seed] = calibrate(draft_of(seed, tmp_path_factory.mktemp("seeds")), tmp_path_factory.mktemp(seed),
                              profiles=[get_profile(p) for p in PROFILES], judge="image-metric", cache=cache,
                              margin=MARGIN, parallel=2, sandbox=isolation, mutate=seed not in UNATTACKED)
    return out


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("profile", PROFILES)
def test_calibration_separates_good_from_bad_by_the_margin(calibrated, seed, profile):
    result = calibrated[seed]
    section = result.report["profiles"][get_profile(profile).key]
    print(f"\n{seed} {profile}: margin {section['margin']} (min good {section['min_good']}, "
          f"max bad {section['max_bad']})")
    if seed in UNATTACKED:  # the samples separate, but the grader was never attacked: not passed
        assert section["misses"] == [NOT_ATTACKED] and not section["passed"], section["misses"]
        assert section["mutations"] is None
    else:
        assert section["passed"], section["misses"]
    assert section["margin"] >= MARGIN
    kinds = {s["kind"] for s in section["samples"]}
    assert kinds == {"reference", "input", "defect", "variant"}
    gaming = section["gaming"]  # the author's attacks, judged like the operators: every one refused
    assert gaming["total"] >= 2 and gaming["refused"] == gaming["total"] and not gaming["misses"], gaming
    if seed not in UNATTACKED:  # every applicable gaming operator killed, under every profile
        mutations = section["mutations"]
        assert mutations["survivors"] == [] and mutations["score"] == 1.0 and mutations["applicable"] >= 60, mutations
        print(f"{seed} {profile}: mutation score {mutations['killed']}/{mutations['applicable']}")
    for s in section["samples"]:
        assert s["met"] and s["total"] is not None
        assert s["success"] is (s["kind"] in ("reference", "variant"))
    if profile != "rule-only":
        assert section["judge"]["id"].startswith("image-metric@")
        assert all(s["vl"]["judge"]["kind"] == "offline-metric" for s in section["samples"])


def test_a_grader_no_operator_attacked_is_never_frozen_and_one_that_met_them_all_is(calibrated):
    unattacked = calibrated["robot-carry"]  # every sample met its expectation, under every profile
    assert not unattacked.passed and not unattacked.freeze_allowed and unattacked.report["freeze"] is False
    with pytest.raises(CalibrationFailed, match="mutation testing did not run"):
        unattacked.require_passed()
    attacked = calibrated["table-model"]
    assert attacked.passed and attacked.freeze_allowed and attacked.report["freeze"] is True
    attacked.require_passed()


def test_report_has_per_sample_per_criterion_results_and_evidence(calibrated):
    result = calibrated["robot-carry"]
    report = json.loads(result.report_path.read_text())
    assert result.report_path.parts[-3:] == ("private", "validation", "report.json")
    section = report["profiles"]["blender-70-30@2"]
    drop = next(s for s in section["samples"] if s["sample"] == "defect:drop_from_height")
    c06 = next(c for c in drop["criteria"] if c["id"] == "C06")
    assert c06["passed"] is False and c06["evidence"]["frames_unsupported"]  # which frames failed
    assert drop["cap_applied"] == 0.4 and drop["core_failed"] == ["C06"]
    rule_ids = {c["id"] for c in json.loads((ROOT / "seeds" / "robot-carry" / "draft" / "rubric.json").read_text())[
        "criteria"]}
    for s in section["samples"]:
        assert {c["id"] for c in s["criteria"]} == rule_ids
        files = s["evidence"]["files"]
        assert len([n for n in files if n.startswith("frame_")]) == 16 and "animation.mp4" in files
        for entry in files.values():  # copied next to the report, hashes as recorded
            assert sha256_file(result.report_path.parent / entry["path"]) == entry["sha256"]
    kuka = report["profiles"]["kuka-80-20@1"]
    assert kuka["params"]["core_caps"]  # chosen by calibration
    versions = {s["verifier_version"] for s in report["profiles"].values()}
    assert len(versions) == 3  # one verifier version per profile


def test_a_missed_expectation_blocks_freezing(calibrated):
    result = calibrated["table-model"]
    bundle = TaskBundle.load(ROOT / "seeds" / "table-model" / "draft")
    scorer = Scorer(bundle, get_profile("rule-only"), options=ScoreOptions(judge=None, render=False))
    strict = judge_profile(get_profile("rule-only"), scorer, result.measured, margin=0.7, reference_min=0.9)
    assert not strict.passed and any("margin 0.6" in m for m in strict.misses)
    failed = type(result)(result.task_id, result.report_path, result.report, {"rule-only@1": strict})
    assert not failed.freeze_allowed
    with pytest.raises(CalibrationFailed, match="margin"):
        failed.require_passed()


# --- the probe library ----------------------------------------------------------------------------

SCENE = '''
import bmesh, bpy
scene = bpy.context.scene
rig = bpy.data.objects.new("Rig", None)
scene.collection.objects.link(rig)
bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0, 0, 0.5))
block = bpy.context.active_object
block.name = "Block"
block.parent = rig
mat = bpy.data.materials.new("Paint")
mat.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.8, 0.1, 0.1, 1.0)
mat.node_tree.nodes.new("ShaderNodeTexImage")
block.data.materials.append(mat)
bpy.ops.mesh.primitive_plane_add(size=1.0, location=(3, 0, 0))
bpy.context.active_object.name = "Sheet"
bpy.ops.mesh.primitive_cube_add(size=1.0, location=(-3, 0, 0.5))
inside = bpy.context.active_object
inside.name = "Inside"
bm = bmesh.new(); bm.from_mesh(inside.data); bmesh.ops.reverse_faces(bm, faces=bm.faces[:])
bm.to_mesh(inside.data); bm.free()
scene.frame_start, scene.frame_end = 1, 24
scene.render.fps = 30
block.keyframe_insert("location", frame=1)
block.location.x = 2.0
block.keyframe_insert("location", frame=24)
scene.render.engine = "CYCLES"
scene.render.resolution_x, scene.render.resolution_y, scene.render.resolution_percentage = 640, 480, 100
# lights, a camera, transforms and render output for the newer primitives
from mathutils import Vector
key = bpy.data.objects.new("Key", bpy.data.lights.new("Key", "AREA"))
key.data.energy = 60.0
scene.collection.objects.link(key)
key.location = (0.0, -2.0, 2.5)  # in front of Block, 45 degrees up
key.rotation_euler = (Vector((0, 0, 0.5)) - key.location).to_track_quat("-Z", "Y").to_euler()
cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
scene.collection.objects.link(cam)
cam.data.lens = 85.0
cam.location = (2.0, 0.0, 0.5)  # to the right of Block, looking 11 degrees past it
cam.rotation_euler = (Vector((0, 0.4, 0.5)) - cam.location).to_track_quat("-Z", "Y").to_euler()
scene.camera = cam
scene.frame_set(1)
for follower in (key, cam):  # they ride with Block, so aim and placement hold at every graded frame
    follower.parent = block
    follower.matrix_parent_inverse = block.matrix_world.inverted()
tilted = bpy.data.objects.new("Tilted", None)
scene.collection.objects.link(tilted)
tilted.rotation_euler, tilted.scale = (0.3, 0.0, 0.0), (2.0, 2.0, 2.0)
img = scene.render.image_settings
img.file_format, img.color_depth, img.exr_codec = "OPEN_EXR", "16", "DWAA"
scene.render.filepath = "//renders/shot_####"
scene.view_settings.view_transform, scene.view_settings.look = "AgX", "AgX - Punchy"
# UVs, an image texture, Principled values and modifiers (mug-material, crate-texture, fence-array)
grid = bpy.data.images.new("Grid", 64, 32)
grid.generated_type = "COLOR_GRID"
tex = next(n for n in mat.node_tree.nodes if n.type == "TEX_IMAGE")
tex.image = grid
bsdf = mat.node_tree.nodes["Principled BSDF"]
mat.node_tree.links.new(tex.outputs["Color"], bsdf.inputs["Specular Tint"])
bsdf.inputs["Roughness"].default_value = 0.3
sheet = bpy.data.objects["Sheet"]  # its full-tile UVs are stacked three times by the Array
row = sheet.modifiers.new("Row", "ARRAY")
row.count, row.relative_offset_displace = 3, (1.5, 0.0, 0.0)
inside.scale = (2.0, 1.0, 1.0)  # unapplied non-uniform scale stretches its UVs in world space
'''

TASK_PROBE = '''
from probe_core import binary_outcome, primitive

@primitive(required=("object", "min_volume"))
def block_volume(probe, p):
    """A task's own probe: the object's AABB volume."""
    (x0, y0, z0), (x1, y1, z1) = probe.aabb(probe.obj(p["object"]), 1)
    v = (x1 - x0) * (y1 - y0) * (z1 - z0)
    return binary_outcome(v >= p["min_volume"], round(v, 6), p["min_volume"], f"volume {v:.3f}")
'''

# (method, params, expected score)
CASES = [
    ("parent_is", {"object": "Block", "parent": "Rig"}, 1.0),
    ("parent_is", {"object": "Rig", "parent": None}, 1.0),
    ("object_type", {"object": "Rig", "type": "EMPTY"}, 1.0),
    ("object_count", {"type": "MESH", "min": 3, "max": 3}, 1.0),
    ("object_count", {"name_prefix": "Block", "max": 0}, 0.0),
    ("mesh_counts", {"object": "Block", "vertices": 8, "faces": 6, "triangles": {"max": 12}}, 1.0),
    ("mesh_counts", {"object": "Block", "faces": {"min": 100}}, 0.0),
    ("manifold", {"objects": ["Block", "Sheet"]}, 0.5),
    ("normals_outward", {"objects": ["Block", "Inside"]}, 0.5),
    ("value_at_frame", {"object": "Block", "data_path": "location", "frame": 24, "expected": [2, 0, 0.5],
                        "tolerance": 1e-4}, 1.0),
    ("value_at_frame", {"object": "Block", "data_path": "location", "index": 0, "frame": 1, "expected": 2.0,
                        "tolerance": 1e-4}, 0.0),
    ("path_through", {"object": "Block", "waypoints": [[1, 0, 0.5], [2, 0, 0.5]], "tolerance": 0.1,
                      "frame_start": 1, "frame_end": 24}, 1.0),
    ("path_through", {"object": "Block", "waypoints": [[2, 0, 0.5], [0, 0, 0.5]], "tolerance": 0.1,
                      "frame_start": 1, "frame_end": 24}, 0.5),
    ("fps", {"expected": 30}, 1.0),
    ("base_color", {"material": "Paint", "expected": [0.8, 0.1, 0.1], "max_delta_e": 1.0}, 1.0),
    ("base_color", {"object": "Block", "expected": "#00ff00", "max_delta_e": 5.0}, 0.0),
    ("material_node_types", {"material": "Paint", "node_types": ["BSDF_PRINCIPLED", "ShaderNodeTexImage"]}, 1.0),
    ("render_engine", {"expected": "CYCLES"}, 1.0),
    ("render_resolution", {"expected": [640, 480]}, 1.0),
    ("file_version", {"min_version": "5.0"}, 1.0),
    ("file_version", {"expected": "4.2"}, 0.0),
    ("block_volume", {"object": "Block", "min_volume": 0.9}, 1.0),
    ("light_settings", {"object": "Key", "type": "AREA", "energy": 60, "color": "#FFFFFF"}, 1.0),
    ("light_settings", {"objects": ["Key", "Block"], "type": "AREA"}, 0.5),
    ("camera_settings", {"object": "Cam", "lens": 85, "projection": "PERSP", "active": True}, 1.0),
    ("camera_settings", {"object": "Cam", "lens": 50}, 0.0),
    ("aimed_at", {"objects": ["Key", "Cam"], "target": "Block", "max_angle": 1}, 0.5),
    ("placed_around", {"object": "Key", "target": "Block", "azimuth": [-10, 10], "elevation": [40, 50],
                       "distance": [2.7, 2.9]}, 1.0),
    ("placed_around", {"object": "Key", "target": "Block", "azimuth": [350, 370]}, 1.0),
    ("placed_around", {"object": "Cam", "target": "Block", "azimuth": [150, 210]}, 0.0),
    ("transforms_applied", {"objects": ["Block", "Tilted"]}, 0.5),
    ("origin_at", {"object": "Block", "point": "aabb_center", "tolerance": 1e-4}, 1.0),
    ("origin_at", {"object": "Block", "point": "aabb_bottom_center", "tolerance": 0.01}, 0.0),
    ("names_match", {"type": "MESH", "pattern": "[A-Z][a-z]+"}, 1.0),
    ("names_match", {"objects": ["Block", "Sheet"], "pattern": "B.*"}, 0.5),
    ("names_match", {"objects": ["Block"], "pattern": "Block", "data_same_name": True}, 0.0),
    ("scene_units", {"system": "METRIC", "scale_length": 1.0}, 1.0),
    ("scene_units", {"length_unit": "MILLIMETERS"}, 0.0),
    ("scene_settings", {"settings": {"render.fps": 30, "cycles.samples": 4096, "render.film_transparent": True}},
     2 / 3),
    ("render_output", {"file_format": "OPEN_EXR", "color_depth": "16", "exr_codec": "DWAA",
                       "path_pattern": "//renders/shot_#{4}"}, 1.0),
    ("render_output", {"file_format": "PNG", "path_pattern": "//renders/shot_#{4}"}, 0.5),
    ("colour_management", {"view_transform": "AgX", "look": "AgX - Punchy", "exposure": 0}, 1.0),
    ("colour_management", {"view_transform": "Standard"}, 0.0),
    ("uv_map", {"objects": ["Block", "Sheet"], "uv_map": "UVMap", "render_active": True}, 1.0),
    ("uv_map", {"object": "Block", "uv_map": "CrateUV"}, 0.0),
    ("uv_bounds", {"objects": ["Block", "Sheet"], "tolerance": 0.001}, 1.0),
    ("uv_overlap", {"objects": ["Block", "Sheet"], "max_overlap": 0.005}, 0.5),
    ("uv_stretch", {"object": "Block", "max_anisotropy": 1.01, "max_density_ratio": 1.01}, 1.0),
    ("uv_stretch", {"objects": ["Block", "Inside"], "max_anisotropy": 1.5}, 0.5),
    ("mesh_islands", {"object": "Sheet", "count": 3, "pitch": 1.5, "axis": "X", "tolerance": 1e-4}, 1.0),
    ("mesh_islands", {"objects": ["Block", "Sheet"], "count": {"min": 2}}, 0.5),
    ("modifier_settings", {"object": "Sheet", "type": "ARRAY",
                           "settings": {"count": 3, "use_relative_offset": True,
                                        "relative_offset_displace": [1.5, 0, 0]}}, 1.0),
    ("modifier_settings", {"object": "Sheet", "type": "ARRAY", "settings": {"count": 4, "fit_type": "FIXED_COUNT"}},
     0.5),
    ("modifier_settings", {"object": "Block", "type": "MIRROR"}, 0.0),
    ("principled_inputs", {"material": "Paint", "inputs": {"Roughness": 0.3, "Metallic": 0.0}}, 1.0),
    ("principled_inputs", {"object": "Block", "inputs": {"Roughness": 0.8, "Metallic": 0.0}, "tolerance": 0.1}, 0.5),
    ("image_texture", {"material": "Paint", "image": "Grid", "size": [64, 32], "colorspace": "sRGB",
                       "input": "Specular Tint", "embedded": True}, 1.0),
    ("image_texture", {"material": "Paint", "image": "Grid", "input": "Base Color"}, 0.5),
    ("image_texture", {"object": "Block", "image": "Missing", "size": [64, 32]}, 0.0),
]


def test_probe_library_groups_and_a_task_probe(tmp_path, isolation):
    scene_script = tmp_path / "scene.py"
    scene_script.write_text(SCENE)
    empty = tmp_path / "empty.blend"
    # an empty start: build_workspace's from_scratch mode with a trivial reference script
    ref = tmp_path / "ref.py"
    ref.write_text("import bpy\n")
    bpy_procs.build_workspace(ref, "from_scratch", empty, tmp_path / "unused.blend", sandbox=isolation)
    delivery = bpy_procs.apply_script(empty, scene_script, tmp_path / "delivery.blend", sandbox=isolation)
    criteria = [{"id": f"K{i:02d}", "requirement_id": "REQ-X", "channel": "rule", "method": m,
                 "weight": 1 / len(CASES), "core": False, "description": m} for i, (m, _, _) in enumerate(CASES)]
    task = {"task_id": "probe-lib", "criteria": criteria,
            "verification": {"weights": {"rule": 1.0, "vl": 0.0, "agent": 0}, "pass_threshold": 0.7,
                             "core_failure_cap": 0.4}}
    rubric = {"rubric_version": "1", "criteria": [{"id": c["id"], "method": m, "params": p}
                                                   for c, (m, p, _) in zip(criteria, CASES)]}
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "task.json").write_text(json.dumps(task))
    (tests / "rubric.json").write_text(json.dumps(rubric))
    (tests / "task_probes.py").write_text(TASK_PROBE)  # found next to the rubric
    report = bpy_procs.probe_fresh(delivery, tests / "task.json", tests / "rubric.json", tmp_path / "r.json",
                                   sandbox=isolation)
    got = {c["id"]: c for c in report["criteria"]}
    off = [(method, want, got[c["id"]]) for c, (method, _, want) in zip(criteria, CASES)
           if got[c["id"]]["score"] != pytest.approx(want) or got[c["id"]]["passed"] is not (want == 1.0)]
    assert not off, [(m, w, e["score"], e["detail"]) for m, w, e in off]
    normals = got["K08"]
    assert normals["measured"]["Inside"]["signed_volume"] < 0 < normals["measured"]["Block"]["signed_volume"]
    assert got["K14"]["evidence"]["delta_e2000"] < 1.0 and got["K14"]["evidence"]["source"] == "auto"
    assert report["probe_version"] == "2"


# --- Harbor + RewardKit ---------------------------------------------------------------------------


def test_packaged_tests_run_under_rewardkit(calibrated, tmp_path):
    """tests/ = the standalone probe files + rewardkit_rules.py + task/rubric: `python -m rewardkit`
    writes reward.json equal to the probe's reward, with per-criterion details."""
    tests, ws, logs = tmp_path / "tests", tmp_path / "ws", tmp_path / "logs"
    tests.mkdir()
    for name in REWARDKIT_FILES:
        shutil.copyfile(ROOT / "verifiers" / name, tests / name)
    draft = ROOT / "seeds" / "robot-carry" / "draft"
    # the rule channel alone (a rule-only task); a VL-weighted publication is covered by
    # test_task_production.py::test_published_task_grades_under_rewardkit_as_the_pipeline_did
    task = task_with_profile(json.loads((draft / "task.json").read_text()), get_profile("rule-only"))
    (tests / "task.json").write_text(json.dumps(task))
    for name in ("rubric.json", "start_scene.json", "task_probes.py"):  # as packaging lays tests/ out
        if (draft / name).is_file():
            shutil.copyfile(draft / name, tests / name)
    sample = next(m for m in calibrated["robot-carry"].measured if m.sample.name == "defect:late_finish")
    (ws / "outputs").mkdir(parents=True)
    shutil.copyfile(sample.delivery, ws / "outputs" / "result.blend")
    env = {**os.environ, "ARKEVO_PROBE_REPORT": str(logs / "report.json"), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    logs.mkdir()
    proc = subprocess.run([sys.executable, "-m", "rewardkit", str(tests), "--workspace", str(ws),
                           "--output", str(logs / "reward.json")], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    reward = json.loads((logs / "reward.json").read_text())
    assert reward == {"reward": 0.4}  # late_finish: a core criterion failed -> cap 0.4
    assert sample.rule_report["core_failed"]  # (its own reward waits for the VL part: kuka-80-20)
    details = json.loads((logs / "reward-details.json").read_text())["reward"]
    by_name = {c["name"]: c for c in details["criteria"]}
    assert by_name["C01"]["value"] == 0.0 and "1..180" in by_name["C01"]["reasoning"]
    assert by_name["total"]["weight"] == 1.0 and by_name["C03"]["weight"] == 0.0


def test_the_judge_must_see_every_graded_part_of_the_reference(calibrated):
    result = calibrated["table-model"]
    reference = next(m for m in result.measured if m.sample.kind == "reference")
    assert reference.evidence is not None
    legs = [reference.evidence.manifest["part_pixels"][v].get("Leg.FL") for v in ("front", "close")]
    assert min(legs[0]) < 8 <= min(legs[1])  # the front view alone would not show a leg: the close one does
    bundle = TaskBundle.load(ROOT / "seeds" / "table-model" / "draft")
    profile = get_profile("blender-70-30")
    scorer = Scorer(bundle, profile, options=ScoreOptions(judge=None, render=False))
    scorer.spec = {**scorer.spec, "hide": ["Leg.FL"]}  # an author who hides a graded part from the judge
    verdict = judge_profile(profile, scorer, result.measured, margin=MARGIN, reference_min=0.9)
    assert not verdict.passed
    assert any(m.startswith("evidence: the VL judge cannot see graded part(s): Leg.FL") for m in verdict.misses)
    rule_only = judge_profile(get_profile("rule-only"), scorer, result.measured, margin=MARGIN, reference_min=0.9)
    assert not any(m.startswith("evidence:") for m in rule_only.misses)  # no judge, nothing to see
