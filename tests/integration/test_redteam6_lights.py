"""Red team 6, product-lighting's lights, in real Blender: settings of a light outside the ones a
criterion listed that change what it puts into the picture.

Ticking Portal (``light.cycles.is_portal``) on an area light makes Cycles use it to guide the
world's light: it emits nothing.  An EEVEE shadow map at 1 m per texel smears its shadows away;
Cycles' Max Bounces 0 cuts the rig's indirect light.  product-lighting's ``lights_as_set`` now
holds every setting of a light data-block (walked as probes_scene walks it, ``cycles``
included) to a fresh light's of its type but the few the spec lets the solver choose, and every
ray visibility flag to a new light object's.  The ``light_portal`` operator
(verifiers/mutations.py, "red team 6: lights") makes the first move.  Blender runs unsandboxed
(LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

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


def fresh():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=CENTRE)
    product = bpy.context.active_object
    product.name, product.scale = "Product", (0.16, 0.16, 0.25)


def light(name, kind, location, energy=60.0, **settings):
    data = bpy.data.lights.new(name, kind)
    data.energy = energy
    for key, value in settings.items():
        setattr(data, key, value)
    obj = bpy.data.objects.new(name, data)
    obj.location = location
    obj.rotation_euler = (CENTRE - obj.location).to_track_quat("-Z", "Y").to_euler()
    bpy.context.scene.collection.objects.link(obj)
    return obj


def added(name, kind, location):
    """A light made the way the UI's Add > Light makes it (an area light 1 m, not 0.25 m)."""
    bpy.ops.object.light_add(type=kind, location=location)
    obj = bpy.context.active_object
    obj.name = obj.data.name = name
    obj.rotation_euler = (CENTRE - obj.location).to_track_quat("-Z", "Y").to_euler()
    return obj


KEY, RIM = (-1.0, -1.0, 2.0), (0.0, 1.5, 2.2)
fresh()
# as the spec allows: type, Power, colour, shape and size, spread, spot size and blend, radius
light("Key", "AREA", KEY, size=0.6)
light("FillDisk", "AREA", KEY, 15.0, shape="DISK", size=1.2, spread=math.radians(120))
light("Rim", "SPOT", RIM, 80.0, color=(0.672, 0.776, 1.0), spot_size=math.radians(40), spot_blend=0.3,
      shadow_soft_size=0.1, show_cone=True)
added("KeyAdded", "AREA", KEY)
added("RimAdded", "SPOT", RIM)
spelled = light("KeySpelledOut", "AREA", KEY, size=0.6)  # Blender's defaults, written out
spelled.data.cycles.is_portal, spelled.data.cycles.max_bounces = False, 1024
spelled.data.use_shadow, spelled.data.exposure = True, 0.0
# what the red team changed, and settings of the same kind
light("KeyPortal", "AREA", KEY, size=0.6).data.cycles.is_portal = True
light("KeyNoBounces", "AREA", KEY, size=0.6).data.cycles.max_bounces = 0
light("KeyCaustics", "AREA", KEY, size=0.6).data.cycles.is_caustics_light = True
light("KeyNoMIS", "AREA", KEY, size=0.6).data.cycles.use_multiple_importance_sampling = False
coarse = light("KeyCoarseShadow", "AREA", KEY, size=0.6)
coarse.data.use_absolute_resolution, coarse.data.shadow_maximum_resolution = True, 1.0
light("KeyBlurredShadow", "AREA", KEY, size=0.6).data.shadow_filter_radius = 5.0
light("KeyJitter", "AREA", KEY, size=0.6, use_shadow_jitter=True, shadow_jitter_overblur=100.0)
light("RimHardEdge", "SPOT", RIM, 80.0, use_soft_falloff=False)
light("RimSquare", "SPOT", RIM, 80.0, use_square=True)
light("KeyExposed", "AREA", KEY, size=0.6).data.exposure = -6.0  # as before: still refused
light("KeyNoTransmission", "AREA", KEY, size=0.6).visible_transmission = False
light("KeyNoVolume", "AREA", KEY, size=0.6).visible_volume_scatter = False
light("KeyOnCamera", "AREA", KEY, size=0.6).visible_camera = True
light("KeyNoShadowRay", "AREA", KEY, size=0.6).visible_shadow = False
bpy.ops.wm.save_as_mainfile(filepath=str(out / "lights.blend"))

fresh()
light("Key", "AREA", KEY, size=0.6)
light("Fill", "AREA", KEY, 15.0, size=1.0)
light("Rim", "SPOT", RIM, 80.0, spot_size=math.radians(40))
bpy.ops.wm.save_as_mainfile(filepath=str(out / "rig.blend"))
'''

HONEST = ("Key", "FillDisk", "Rim", "KeyAdded", "RimAdded", "KeySpelledOut")
# light -> the setting lights_as_set names when it refuses it
REFUSED = {
    "KeyPortal": "cycles.is_portal True",
    "KeyNoBounces": "cycles.max_bounces 0",
    "KeyCaustics": "cycles.is_caustics_light True",
    "KeyNoMIS": "cycles.use_multiple_importance_sampling False",
    "KeyCoarseShadow": "shadow_maximum_resolution 1.0",
    "KeyBlurredShadow": "shadow_filter_radius 5.0",
    "KeyJitter": "use_shadow_jitter True",
    "RimHardEdge": "use_soft_falloff False",
    "RimSquare": "use_square True",
    "KeyExposed": "exposure -6.0",
    "KeyNoTransmission": "visible_transmission False",
    "KeyNoVolume": "visible_volume_scatter False",
    "KeyOnCamera": "visible_camera True",
    "KeyNoShadowRay": "visible_shadow False",
}


def as_set(*names: str) -> tuple[str, dict]:
    return "lights_as_set", {"objects": list(names)}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam6-lights")
    script = tmp / "make.py"
    script.write_text(MAKE, encoding="utf-8")
    run_bpy(script, tmp)
    cases = {"HONEST": as_set(*HONEST), **{name.upper(): as_set(name) for name in REFUSED}}
    task, rubric = write_rule_task(tmp / "task", cases, "redteam6-lights")
    report = probe_local(tmp / "lights.blend", task, rubric, tmp / "report.json", PROBES)
    return {"tmp": tmp, "graded": {c["id"]: c for c in report["criteria"]}}


def test_the_settings_the_spec_lets_the_solver_choose_pass(scenes):
    got = scenes["graded"]["HONEST"]
    assert got.get("error") is None, got
    assert got["passed"] is True and got["score"] == 1.0, got
    assert all(v == "as set" for v in got["measured"].values()), got["measured"]


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_any_other_setting_off_its_default_is_refused(scenes, name):
    got = scenes["graded"][name.upper()]
    assert got.get("error") is None, got
    assert got["passed"] is False, got
    assert REFUSED[name] in got["detail"], got["detail"]
    assert "(default " in got["detail"], got["detail"]


def test_only_the_changed_setting_is_named(scenes):
    """A light off by one setting reads as off by that one: the defaults are its type's."""
    detail = scenes["graded"]["KEYPORTAL"]["detail"]
    assert detail == "KeyPortal: cycles.is_portal True (default False)", detail
    rim = scenes["graded"]["RIMSQUARE"]["detail"]
    assert rim == "RimSquare: use_square True (default False)", rim


# --- the operator (verifiers/mutations.py, "red team 6: lights") -----------------------------------

def mutate(scenes, cases: dict) -> dict:
    task, rubric = write_rule_task(scenes["tmp"] / f"portal-{len(cases)}-{sorted(cases)[0]}", cases,
                                   "redteam6-light-portal")
    with local_probe() as probe:
        (row,) = probe.mutate(scenes["tmp"] / "rig.blend", task, rubric, PROBES, operators=["light_portal"])
    return row


def test_light_portal_applies_and_is_killed_by_lights_as_set(scenes):
    rig = {"LIVE": as_set("Key", "Fill", "Rim"),
           "POWER": ("light_settings", {"object": "Key", "type": "AREA", "energy": 60})}
    task, rubric = write_rule_task(scenes["tmp"] / "rig-task", rig, "redteam6-rig")
    before = probe_local(scenes["tmp"] / "rig.blend", task, rubric, scenes["tmp"] / "rig.json", PROBES)
    assert all(c["passed"] for c in before["criteria"]), before["criteria"]
    row = mutate(scenes, rig)
    assert row["applicable"] and row["error"] is None, row
    refused = {c["id"]: c for c in row["criteria"] if not c["passed"]}
    assert set(refused) == {"LIVE"}, row["criteria"]  # light_settings reads the power as set
    assert sorted(refused["LIVE"]["evidence"]["off"]) == ["Fill", "Key"], refused["LIVE"]  # the spot ignores it


def test_light_portal_needs_a_criterion_reading_every_setting(scenes):
    power_only = {"POWER": ("light_settings", {"object": "Key", "type": "AREA", "energy": 60})}
    row = mutate(scenes, power_only)
    assert not row["applicable"] and "Cycles makes only area lights portals" in row["why"], row
    spot_only = {"LIVE": as_set("Rim")}
    row = mutate(scenes, spot_only)
    assert not row["applicable"], row
