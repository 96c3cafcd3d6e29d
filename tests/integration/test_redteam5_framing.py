"""Red team 5, product-lighting, in real Blender: what a light or a lens does to the product a
render shows, beyond the settings a criterion reads.

A 15 W point light 12 cm from the product reads as "at most 15 W" but, by the inverse square
law, puts ~80 times what a 15 W fill puts on it from 2.2 m (``light_power``'s ``target`` /
``no_brighter_than``).  Depth of field at f/0.02 focused 9 cm behind the product reads as
"focused on it" (within the 0.1 m margin) but renders a smear (product-lighting's
``shot_framing``: each vertex's circle of confusion at most ``max_blur_px`` pixels).  The
``extra_lights_close`` and ``dof_smear`` operators (verifiers/mutations.py, "red team 5:
lighting") make both moves.  Blender runs unsandboxed (LOCAL): everything it runs here is this
test's own code."""

from __future__ import annotations

import math

from pathlib import Path

import pytest

from tests.probe_cases import local_probe, probe_local, run_bpy, write_rule_task

pytestmark = pytest.mark.blender

PROBES = Path(__file__).resolve().parents[2] / "seeds" / "product-lighting" / "draft" / "task_probes.py"

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


def aim(obj):
    obj.rotation_euler = (CENTRE - obj.location).to_track_quat("-Z", "Y").to_euler()


def fresh():
    """The seed's set in small: a 0.16 x 0.16 x 0.25 m speaker, a 15 W fill 2.2 m away, the
    85 mm camera 2.6 m in front, a 1600 x 1600 frame."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=CENTRE)
    product = bpy.context.active_object
    product.name, product.scale = "Product", (0.16, 0.16, 0.25)
    light("Fill", "AREA", 15.0, around(50, 10, 2.2), size=1.0)
    scene = bpy.context.scene
    scene.render.resolution_x = scene.render.resolution_y = 1600
    scene.render.resolution_percentage = 100
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    scene.collection.objects.link(cam)
    cam.data.lens = 85.0
    cam.location = around(0, 8, 2.6)
    aim(cam)
    scene.camera = cam
    return cam


def light(name, kind, energy, location, **settings):
    data = bpy.data.lights.new(name, kind)
    data.energy = energy
    for key, value in settings.items():
        setattr(data, key, value)
    obj = bpy.data.objects.new(name, data)
    obj.location = location
    bpy.context.scene.collection.objects.link(obj)
    aim(obj)
    return obj


def save(name):
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


fresh()
light("Bounce", "AREA", 3.0, around(0, -20, 1.8), size=2.0)     # the variant's: 0.29 on the product
light("SpotFar", "SPOT", 15.0, around(-90, 20, 1.2))             # 0.83 on it, the fill 0.99
light("Kicker", "POINT", 15.0, CENTRE + Vector((0.0, -0.12, 0.0)))  # 83 on it
light("PanelNear", "AREA", 5.0, around(0, 0, 0.5), size=0.3)     # 6.4 on it
light("Dimmed", "POINT", 15.0, CENTRE + Vector((0.0, -0.12, 0.0)), exposure=-8.0)  # 0.32 on it
light("SunWeak", "SUN", 0.5, around(0, 60, 3.0))
light("SunStrong", "SUN", 3.0, around(0, 60, 3.0))
save("lights")

fresh()
save("no_dof")

cam = fresh()
cam.data.dof.use_dof, cam.data.dof.aperture_fstop = True, 2.8
cam.data.dof.focus_distance = (CENTRE - cam.location).length
save("f2_8_centre")

cam = fresh()
cam.data.dof.use_dof, cam.data.dof.aperture_fstop = True, 0.02
cam.data.dof.focus_distance = (CENTRE - cam.location).length + 0.17
save("smear_behind")

cam = fresh()
focus = bpy.data.objects.new("Focus", None)
focus.location = CENTRE
bpy.context.scene.collection.objects.link(focus)
cam.data.dof.use_dof, cam.data.dof.aperture_fstop, cam.data.dof.focus_object = True, 2.8, focus
save("f2_8_focus_object")

cam = fresh()
focus = bpy.data.objects.new("Focus", None)
focus.location = CENTRE + Vector((0.0, 0.17, 0.0))
bpy.context.scene.collection.objects.link(focus)
cam.data.dof.use_dof, cam.data.dof.aperture_fstop, cam.data.dof.focus_object = True, 0.02, focus
save("smear_focus_object")

cam = fresh()
cam.data.dof.use_dof, cam.data.dof.aperture_fstop, cam.data.dof.aperture_ratio = True, 2.8, 2.0
cam.data.dof.focus_distance = (CENTRE - cam.location).length
save("f2_8_anamorphic")

cam = fresh()
cam.data.dof.use_dof, cam.data.dof.aperture_fstop = True, 16.0
cam.data.dof.focus_distance = (CENTRE - cam.location).length + 0.09
save("f16_behind")
'''

ALL = ["Fill", "Bounce", "SpotFar", "Kicker", "PanelNear", "Dimmed", "SunWeak", "SunStrong"]


def only(*names: str) -> tuple[str, dict]:
    """light_power on ``names`` alone, bounded by what Fill puts on the product."""
    return "light_power", {"exclude": [n for n in ALL if n not in names], "max_power": 15,
                           "target": "Product", "no_brighter_than": "Fill"}


# criterion -> (method, params, passes)
LIGHT_CASES = {
    # each under the fill, together 1.9x it: a swarm outshines the fill as one strong light does (red team 18)
    "L_FAR": (*only("Bounce", "SpotFar", "Dimmed", "SunWeak"), False),
    # measured at the product's nearest point (red team 20): Dimmed, 4 cm from the product's face,
    # puts 2.9 there against the fill's 1.1 -- the weak light held close that outshines the rig
    "L_FAR_FEW": (*only("Bounce", "Dimmed"), False),
    "L_KICKER": (*only("Kicker"), False),
    "L_PANEL_NEAR": (*only("PanelNear"), False),
    "L_SUN_STRONG": (*only("SunStrong"), False),
    "L_NO_REFERENCE": ("light_power", {**only("Bounce")[1], "no_brighter_than": "Missing"}, False),
    "L_POWER_ONLY": ("light_power", {"exclude": ["Fill", "SunStrong"], "max_power": 15}, True),  # as before
}

FRAMING = ("shot_framing", {"camera": "Camera", "target": "Product", "min_fill": 0.1, "sensor_width": 36,
                            "focus_margin": 0.1, "max_blur_px": 2})
# blend -> passes
SHOTS = {"no_dof": True, "f2_8_centre": True, "f2_8_focus_object": True, "f16_behind": True,
         "smear_behind": False, "smear_focus_object": False, "f2_8_anamorphic": False}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam5-framing")
    script = tmp / "make.py"
    script.write_text(MAKE, encoding="utf-8")
    run_bpy(script, tmp)
    task, rubric = write_rule_task(tmp / "lights-task", {cid: (m, p) for cid, (m, p, _) in LIGHT_CASES.items()},
                                   "redteam5-lighting")
    report = probe_local(tmp / "lights.blend", task, rubric, tmp / "lights.json")
    shot_task, shot_rubric = write_rule_task(tmp / "shot-task", {"FRAMING": FRAMING}, "redteam5-framing")
    shots = {}
    for name in SHOTS:
        got = probe_local(tmp / f"{name}.blend", shot_task, shot_rubric, tmp / f"{name}.json",
                                    PROBES)
        shots[name] = got["criteria"][0]
    return {"tmp": tmp, "lights": {c["id"]: c for c in report["criteria"]}, "shots": shots}


@pytest.mark.parametrize("cid", sorted(LIGHT_CASES))
def test_light_case(scenes, cid):
    got = scenes["lights"][cid]
    assert got.get("error") is None, got
    assert got["passed"] is LIGHT_CASES[cid][2], got


@pytest.mark.parametrize("name", sorted(SHOTS))
def test_shot_case(scenes, name):
    got = scenes["shots"][name]
    assert got.get("error") is None, got
    assert got["passed"] is SHOTS[name], got


def _to_product(azimuth: float, elevation: float, distance: float) -> float:
    """The distance from a light placed as MAKE's ``around`` places it to the product's nearest
    point (its 0.16 x 0.16 x 0.25 m box about CENTRE)."""
    az, el = math.radians(azimuth), math.radians(elevation)
    offset = (distance * math.sin(az) * math.cos(el), -distance * math.cos(az) * math.cos(el),
              distance * math.sin(el))
    half = (0.08, 0.08, 0.125)
    return math.sqrt(sum(max(abs(o) - h, 0.0) ** 2 for o, h in zip(offset, half)))


def test_the_light_on_the_product_is_power_over_distance_squared(scenes):
    """Each light at the product's nearest point (red team 20), the fill too."""
    graded = scenes["lights"]
    fill = graded["L_FAR"]["expected"]["reference_on_target"]
    assert fill == pytest.approx(15 / math.pi / _to_product(50, 10, 2.2) ** 2, rel=1e-3)  # an area light: / pi
    on = graded["L_FAR"]["evidence"]["on_target"]
    assert on["SpotFar"] == pytest.approx(15 / (4 * math.pi) / _to_product(-90, 20, 1.2) ** 2, rel=1e-3)  # / 4 pi
    assert on["SunWeak"] == pytest.approx(0.5)
    kicker = graded["L_KICKER"]["evidence"]["on_target"]["Kicker"]
    assert kicker / fill > 80
    assert "Kicker: 15 W at 0.04 m puts" in graded["L_KICKER"]["detail"]  # 4 cm from the face
    assert "no render-visible light 'Missing'" in graded["L_NO_REFERENCE"]["detail"]
    assert "on_target" not in graded["L_POWER_ONLY"]["evidence"]


def test_the_blur_is_measured_in_pixels(scenes):
    shots = scenes["shots"]
    sharp = shots["f2_8_centre"]["measured"]["blur_px"]
    # f/2.8, 85 mm, focused on the centre 2.6 m away: the speaker's near and far vertices ~1.8 px
    assert 1.0 < sharp < 2.0, sharp
    assert shots["f2_8_anamorphic"]["measured"]["blur_px"] == pytest.approx(2 * sharp, rel=1e-3)
    assert shots["smear_behind"]["measured"]["blur_px"] > 500  # ~640 px: a smear
    assert shots["smear_behind"]["evidence"]["off"] == ["sharp"]  # the focus is inside the margin
    assert "blur_px" not in shots["no_dof"]["measured"]


# --- the operators (verifiers/mutations.py, "red team 5: lighting") ---------------------------

RIG = {"LIGHTS": ("light_power", {"exclude": ["Fill"], "max_power": 15, "target": "Product",
                                  "no_brighter_than": "Fill"}),
       "FRAMING": FRAMING}


def mutate(scenes, cases: dict, operator: str) -> dict:
    task, rubric = write_rule_task(scenes["tmp"] / f"{operator}-task", cases, f"redteam5-{operator}")
    with local_probe() as probe:
        (row,) = probe.mutate(scenes["tmp"] / "no_dof.blend", task, rubric, PROBES, operators=[operator])
    return row


def test_the_rig_passes_before_mutation(scenes):
    task, rubric = write_rule_task(scenes["tmp"] / "rig-task", RIG, "redteam5-rig")
    report = probe_local(scenes["tmp"] / "no_dof.blend", task, rubric, scenes["tmp"] / "rig.json",
                                   PROBES)
    assert all(c["passed"] for c in report["criteria"]), report["criteria"]


def test_extra_lights_close_applies_and_is_killed(scenes):
    row = mutate(scenes, RIG, "extra_lights_close")
    assert row["applicable"] and row["error"] is None, row
    refused = {c["id"]: c for c in row["criteria"] if not c["passed"]}
    assert set(refused) == {"LIGHTS"}, row["criteria"]
    assert len([n for n in refused["LIGHTS"]["evidence"]["off"] if n != "(together)"]) == 4, refused["LIGHTS"]


def test_dof_smear_applies_and_is_killed(scenes):
    row = mutate(scenes, RIG, "dof_smear")
    assert row["applicable"] and row["error"] is None, row
    refused = {c["id"]: c for c in row["criteria"] if not c["passed"]}
    assert set(refused) == {"FRAMING"}, row["criteria"]
    assert refused["FRAMING"]["evidence"]["off"] == ["sharp"], refused["FRAMING"]


def test_the_operators_need_a_stated_bound(scenes):
    power_only = {"LIGHTS": ("light_power", {"exclude": ["Fill"], "max_power": 15})}
    row = mutate(scenes, power_only, "extra_lights_close")
    assert not row["applicable"] and row["why"] == "no criterion bounds the light an added light puts on a part", row
    row = mutate(scenes, power_only, "dof_smear")
    assert not row["applicable"] and row["why"] == "no criterion grades a camera's focus on a part", row
