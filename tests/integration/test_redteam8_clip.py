"""Red team 8 (issue 33), in real Blender: a camera whose clip range cuts the set away.

product-lighting's `b_clip_plinth_away`: the reference rig and camera, with the camera's Clip
Start 3 mm in front of the speaker and Clip End 3 mm behind it.  Every render shows the speaker
floating in the dark, the plinth under it cut away, while every check read the set as supplied
and `shot_framing` found the speaker inside the frame and the clip range.  `clip_keeps`
(verifiers/probes_scene.py, "red team 8: camera clipping") measures what the clip range cuts of
the set inside the camera's view: the evaluated surface of each object, clipped to the view (the
frame's pyramid in front of a perspective camera, its box for an orthographic one), must lie
between Clip Start and Clip End along the view axis; a panoramic camera is judged by distance in
every direction.  A floor running under, behind and beside the camera, a wall behind it and a
pillar off to the side count only where they are seen.  The `camera_clip_tight` operator
(verifiers/mutations.py) makes the move on any camera a criterion frames.  Blender runs
unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tests.probe_cases import local_probe, probe_local, assert_refused_as_expected, run_bpy, write_rule_task
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT_SCRIPT = ROOT / "verifiers" / "scene_snapshot.py"
PROBES = ROOT / "seeds" / "product-lighting" / "draft" / "task_probes.py"

MAKE = r'''
import math
import sys
from pathlib import Path

import bpy
from mathutils import Vector

out = Path(sys.argv[-1])
CENTRE = Vector((0.0, 0.0, 1.025))


def around(azimuth, elevation, distance):
    az, el = math.radians(azimuth), math.radians(elevation)
    return CENTRE + distance * Vector((math.sin(az) * math.cos(el), -math.cos(az) * math.cos(el), math.sin(el)))


def aim(obj, at=CENTRE):
    obj.rotation_euler = (at - obj.location).to_track_quat("-Z", "Y").to_euler()


def box(name, size, location):
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=location)
    obj = bpy.context.active_object
    obj.name, obj.scale = name, size
    return obj


def plane(name, size, location, rotation=(0.0, 0.0, 0.0)):
    bpy.ops.mesh.primitive_plane_add(size=size, location=location, rotation=rotation)
    bpy.context.active_object.name = name


def the_set():
    """The seed's set in small: a speaker on a plinth; a 400 m floor running under, behind and
    beside the camera, a backdrop behind the plinth, a wall behind the camera and a pillar 30 m
    off to the side (never in a perspective frame)."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    box("Plinth", (0.4, 0.4, 0.9), (0.0, 0.0, 0.45))
    box("Product", (0.16, 0.16, 0.25), CENTRE)
    plane("Floor", 400.0, (0.0, 0.0, 0.0))
    plane("Backdrop", 10.0, (0.0, 3.0, 3.0), (math.pi / 2, 0.0, 0.0))
    plane("Rear", 10.0, (0.0, -5.0, 3.0), (math.pi / 2, 0.0, 0.0))
    box("Pillar", (0.5, 0.5, 6.0), (30.0, 0.0, 3.0))
    scene = bpy.context.scene
    scene.render.resolution_x = scene.render.resolution_y = 1600
    scene.render.resolution_percentage = 100
    return scene


def camera(kind="PERSP", clip=None):
    scene = the_set()
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    scene.collection.objects.link(cam)
    cam.data.type, cam.data.lens = kind, 85.0
    if kind == "ORTHO":
        cam.data.ortho_scale = 1.5
    if kind == "PANO":
        cam.data.panorama_type = "EQUIRECTANGULAR"
    cam.location = around(0, 8, 2.6)
    aim(cam)
    scene.camera = cam
    if clip == "hug":  # the red team's: 3 mm either side of the speaker's box
        bpy.context.view_layer.update()
        to_camera = cam.matrix_world.inverted()
        product = bpy.data.objects["Product"]
        depths = [-(to_camera @ (product.matrix_world @ Vector(c))).z for c in product.bound_box]
        cam.data.clip_start, cam.data.clip_end = min(depths) - 0.003, max(depths) + 0.003
    elif clip is not None:
        cam.data.clip_start, cam.data.clip_end = clip
    return cam


def save(name):
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


the_set()
save("start")
camera()
save("honest")
camera(clip="hug")
save("hugged")
camera(clip=(2.0, 1000.0))  # nothing in view is nearer than 2.4 m: floor and wall cut lie out of it
save("start_2m")
camera(clip=(0.1, 10.0))  # the floor in view runs out to ~200 m; the pillar lies out of view
save("end_10m")
camera("ORTHO")  # the wall behind the camera lies in the box, behind it
save("ortho")
camera("ORTHO", clip="hug")
save("ortho_hugged")
camera("PANO")
save("pano")
camera("PANO", clip=(0.1, 3.0))
save("pano_3m")

# Two cards in front of a 50 mm camera at the origin looking along +Y, Clip End 5 m (a 36 mm
# sensor: the frame's side edges 0.36 m off the axis per metre of depth): a 1 m card 5 m away
# tilted 45 degrees about X (depths 5 -+ 0.354, half beyond Clip End) and a flat 1 m card 4 m away
# centred on the frame's right edge (half of it in view).
bpy.ops.wm.read_factory_settings(use_empty=True)
plane("Tilted", 1.0, (0.0, 5.0, 0.0), (math.pi / 4, 0.0, 0.0))
plane("Edge", 1.0, (1.44, 4.0, 0.0), (math.pi / 2, 0.0, 0.0))
scene = bpy.context.scene
scene.render.resolution_x, scene.render.resolution_y = 1920, 1080
cam = bpy.data.objects.new("Lens", bpy.data.cameras.new("Lens"))
scene.collection.objects.link(cam)
cam.data.lens, cam.data.clip_end = 50.0, 5.0
cam.rotation_euler = (math.pi / 2, 0.0, 0.0)
scene.camera = cam
save("cards")
'''

CASES = {
    "KEPT": ("clip_keeps", {}),  # the start scene's render-visible geometry
    "SET": ("clip_keeps", {"camera": "Camera", "objects": ["Product", "Plinth"], "tolerance": 0.001}),
    "PILLAR": ("clip_keeps", {"objects": ["Pillar"]}),
}
# delivery -> {criterion: what its detail names}; every other criterion passes
EXPECTED = {
    "honest": {},
    "hugged": {"KEPT": "Plinth: ", "SET": "Plinth: "},
    "start_2m": {},
    "end_10m": {"KEPT": "Floor: "},
    "ortho": {},
    "ortho_hugged": {"KEPT": "Plinth: ", "SET": "Plinth: "},
    "pano": {},
    "pano_3m": {"KEPT": "Floor lies", "SET": "Plinth lies", "PILLAR": "Pillar lies"},
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam8-clip")
    script = tmp / "make.py"
    script.write_text(MAKE, encoding="utf-8")
    run_bpy(script, tmp)
    task, rubric = write_rule_task(tmp / "task", CASES, "redteam8-clip", start_mode="continue")
    run_bpy(SNAPSHOT_SCRIPT, "--blend", tmp / "start.blend", "--out", tmp / "task" / "start_scene.json")
    reports = {}
    for name in EXPECTED:
        reports[name] = probe_local(tmp / f"{name}.blend", task, rubric, tmp / f"{name}.json")
    return {"tmp": tmp, "task": task, "rubric": rubric, "reports": reports}


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_what_the_clip_range_cuts_of_the_set_in_view_is_refused(scenes, delivery):
    assert_refused_as_expected(scenes["reports"][delivery], EXPECTED[delivery], delivery)


def criterion(scenes, delivery: str, cid: str) -> dict:
    return {c["id"]: c for c in scenes["reports"][delivery]["criteria"]}[cid]


def test_only_the_set_in_view_counts(scenes):
    honest = criterion(scenes, "honest", "KEPT")
    assert sorted(honest["measured"]) == ["Backdrop", "Floor", "Pillar", "Plinth", "Product", "Rear"]
    seen = honest["measured"]
    assert seen["Rear"]["view_m2"] == 0 and seen["Pillar"]["view_m2"] == 0  # behind, beside the camera
    assert seen["Floor"]["view_m2"] > 100  # the floor in view runs to its far edge, 200 m away
    assert 150 < seen["Floor"]["depth"][1] < 300 and seen["Floor"]["depth"][0] > 2.0  # never under the lens
    hugged = criterion(scenes, "hugged", "SET")
    plinth = hugged["measured"]["Plinth"]
    assert plinth["near_m2"] > 0.1 and plinth["far_m2"] > 0.1, plinth  # its front face and the top around it
    assert hugged["measured"]["Product"]["near_m2"] == 0 and hugged["measured"]["Product"]["far_m2"] == 0
    assert hugged["evidence"]["off"] == ["Plinth"]
    ortho = criterion(scenes, "ortho", "KEPT")["measured"]
    assert ortho["Rear"]["view_m2"] == 0  # in the orthographic box, but behind the camera


def test_the_cut_area_is_the_surface_clipped_to_the_view(scenes, tmp_path):
    cases = {"TILTED": ("clip_keeps", {"camera": "Lens", "objects": ["Tilted"], "tolerance": 0}),
             "EDGE": ("clip_keeps", {"camera": "Lens", "objects": ["Edge"], "tolerance": 0})}
    task, rubric = write_rule_task(tmp_path / "cards", cases, "redteam8-clip-cards")
    report = probe_local(scenes["tmp"] / "cards.blend", task, rubric, tmp_path / "cards.json")
    got = {c["id"]: c for c in report["criteria"]}
    tilted = got["TILTED"]["measured"]["Tilted"]
    assert tilted["view_m2"] == pytest.approx(1.0, abs=1e-6)
    assert tilted["far_m2"] == pytest.approx(0.5, abs=1e-6) and tilted["near_m2"] == 0  # beyond Clip End 5 m
    assert tilted["depth"] == pytest.approx([5 - math.sqrt(0.125), 5 + math.sqrt(0.125)], abs=1e-5)
    assert not got["TILTED"]["passed"] and "0.5 m2 beyond Clip End (50% of its 1 m2 in view" in got["TILTED"]["detail"]
    edge = got["EDGE"]["measured"]["Edge"]
    assert edge["view_m2"] == pytest.approx(0.5, abs=1e-6) and got["EDGE"]["passed"], got["EDGE"]  # at 5 m: not cut


# --- the operator (verifiers/mutations.py, "red team 8: camera clipping") ----------------------

def mutate(scenes, cases: dict, name: str, probes: Path | None = None) -> dict:
    task, rubric = write_rule_task(scenes["tmp"] / f"op-{name}", cases, f"redteam8-clip-{name}",
                                   start_mode="continue")
    (scenes["tmp"] / f"op-{name}" / "start_scene.json").write_bytes(
        (scenes["tmp"] / "task" / "start_scene.json").read_bytes())
    with local_probe() as probe:
        (row,) = probe.mutate(scenes["tmp"] / "honest.blend", task, rubric, probes, operators=["camera_clip_tight"])
    return row


def test_camera_clip_tight_is_an_operator():
    assert "camera_clip_tight" in OPERATOR_NAMES


def test_camera_clip_tight_hugs_the_framed_subject_and_is_killed(scenes):
    framing = ("shot_framing", {"camera": "Camera", "target": "Product", "min_fill": 0.1, "sensor_width": 36})
    cases = {"FRAMING": framing, "SET": CASES["SET"],
             "LENS": ("camera_settings", {"object": "Camera", "lens": 85, "projection": "PERSP", "active": True})}
    row = mutate(scenes, cases, "framed", PROBES)
    assert row["applicable"] and row["error"] is None, row
    refused = {c["id"]: c for c in row["criteria"] if not c["passed"]}
    assert set(refused) == {"SET"}, row["criteria"]  # the speaker stays in the frame and the clip range
    assert refused["SET"]["evidence"]["off"] == ["Plinth"], refused["SET"]


def test_camera_clip_tight_applies_to_a_camera_a_criterion_frames(scenes):
    row = mutate(scenes, {"LENS": ("camera_settings", {"object": "Camera", "lens": 85})}, "lens-only")
    assert row["applicable"] and row["error"] is None, row  # nothing measures the clip: it survives
    assert all(c["passed"] for c in row["criteria"]), row["criteria"]
    row = mutate(scenes, {"SIZE": ("dimensions", {"object": "Product", "expected": [0.16, 0.16, 0.25],
                                                  "tolerance": 0.001})}, "no-camera")
    assert not row["applicable"] and "no camera a criterion frames" in row["why"], row
