"""Red team 14 (issue 33), in real Blender: colour management a render applies.

The table-model samples built the reference table and changed one colour-management setting that
`_colour_neutral` never read: the view transform (False Color: a heat map), the look (AgX -
Greyscale), white balance (1800 K, tint 500: a dark cast) or the display device (Rec.2100-PQ: a
washed-out picture).  `render_overrides` with `colour_neutral` now holds every setting a render
applies to a short neutral list (NEUTRAL_VIEWS, NEUTRAL_LOOKS, no white-balance cast, an sRGB
display), the render output's own settings when they override the scene's, and the colour space a
linear output is written in; the honest neutral choices (Standard, Filmic, Khronos PBR Neutral,
AgX's base look, white balance at 6500 K, display emulation off, an EXR output) still pass.  A
task that keeps its start scene refuses each of them through `scene_unchanged`'s render section.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import probe_local, assert_refused_as_expected, run_bpy, write_rule_task
from verifiers import bpy_procs
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = r'''
import sys
from pathlib import Path

import bpy

out = Path(sys.argv[-1])
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0.0, 0.0, 0.5))
bpy.context.active_object.name = "Cube"
bpy.ops.wm.save_as_mainfile(filepath=str(out / "start.blend"))


def variant(name, change):
    bpy.ops.wm.open_mainfile(filepath=str(out / "start.blend"))
    scene = bpy.context.scene
    change(scene, scene.view_settings, scene.display_settings, scene.render.image_settings)
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


def setattrs(target, **values):
    for key, value in values.items():
        setattr(target, key, value)


def override(image, view):
    image.color_management = "OVERRIDE"
    image.view_settings.view_transform = view


# the red team's four, and their leads
variant("false_colour", lambda s, vs, ds, im: setattr(vs, "view_transform", "False Color"))
variant("greyscale_look", lambda s, vs, ds, im: setattr(vs, "look", "AgX - Greyscale"))
variant("white_balance_cast", lambda s, vs, ds, im: setattrs(vs, use_white_balance=True,
                                                             white_balance_temperature=1800.0,
                                                             white_balance_tint=500.0))
variant("display_pq", lambda s, vs, ds, im: setattr(ds, "display_device", "Rec.2100-PQ"))
variant("display_p3", lambda s, vs, ds, im: setattr(ds, "display_device", "Display P3"))
variant("view_raw", lambda s, vs, ds, im: setattr(vs, "view_transform", "Raw"))
variant("filmic_log", lambda s, vs, ds, im: setattr(vs, "view_transform", "Filmic Log"))
variant("aces", lambda s, vs, ds, im: setattr(vs, "view_transform", "ACES 2.0"))
variant("output_false_colour", lambda s, vs, ds, im: override(im, "False Color"))
variant("exr_rec2020", lambda s, vs, ds, im: setattrs(im, file_format="OPEN_EXR")
        or setattr(im.linear_colorspace_settings, "name", "Linear Rec.2020"))
# honest neutral choices
variant("standard", lambda s, vs, ds, im: setattr(vs, "view_transform", "Standard"))
variant("filmic", lambda s, vs, ds, im: setattr(vs, "view_transform", "Filmic"))
variant("khronos", lambda s, vs, ds, im: setattr(vs, "view_transform", "Khronos PBR Neutral"))
variant("agx_base_look", lambda s, vs, ds, im: setattr(vs, "look", "AgX - Base Contrast"))
variant("white_balance_default", lambda s, vs, ds, im: setattr(vs, "use_white_balance", True))
variant("emulation_off", lambda s, vs, ds, im: setattr(ds, "emulation", "OFF"))
variant("exr_output", lambda s, vs, ds, im: setattr(im, "file_format", "OPEN_EXR"))
variant("output_standard", lambda s, vs, ds, im: override(im, "Standard"))
'''

NEUTRAL_CASES = {"RENDER": ("render_overrides", {"colour_neutral": True})}
KEPT_CASES = {"KEPT": ("scene_unchanged", {"frame": 1})}
REFUSED = {  # delivery: (what render_overrides names, what scene_unchanged names)
    "false_colour": ("view transform 'False Color'", "view_transform"),
    "greyscale_look": ("look 'AgX - Greyscale'", "look"),
    "white_balance_cast": ("white balance 1800 K, tint 500", "white_balance"),
    "display_pq": ("display device 'Rec.2100-PQ'", "display_settings"),
    "display_p3": ("display device 'Display P3'", "display_settings"),
    "view_raw": ("view transform 'Raw'", "view_transform"),
    "filmic_log": ("view transform 'Filmic Log'", "view_transform"),
    "aces": ("view transform 'ACES 2.0'", "view_transform"),
    "output_false_colour": ("output view transform 'False Color'", "image_settings"),
    "exr_rec2020": ("output colour space 'Linear Rec.2020'", "image_settings"),
}
HONEST = ("start", "standard", "filmic", "khronos", "agx_base_look", "white_balance_default", "emulation_off",
          "exr_output", "output_standard")
EXPECTED = {("neutral", "start"): {}, ("kept", "start"): {}}
EXPECTED.update({("neutral", name): {} for name in HONEST})
EXPECTED.update({("neutral", name): {"RENDER": named} for name, (named, _) in REFUSED.items()})
EXPECTED.update({("kept", name): {"KEPT": named} for name, (_, named) in REFUSED.items()})


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam14-colour-management")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    neutral = write_rule_task(tmp / "neutral", NEUTRAL_CASES, "redteam14-neutral", start_mode="from_scratch")
    kept = write_rule_task(tmp / "kept", KEPT_CASES, "redteam14-kept")
    run_bpy(bpy_procs.VERIFIERS / "scene_snapshot.py", "--blend", tmp / "start.blend",
            "--out", tmp / "kept" / "start_scene.json")
    return {"tmp": tmp, "neutral": neutral, "kept": kept}


@pytest.mark.parametrize(("task", "delivery"), sorted(EXPECTED))
def test_colour_management_a_render_applies_is_graded(scenes, task, delivery):
    task_path, rubric = scenes[task]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task_path, rubric,
                                   scenes["tmp"] / f"report-{task}-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[(task, delivery)], delivery)


def test_the_new_operators_are_listed():
    assert {"view_false_colour", "look_greyscale", "white_balance_cast", "display_device_hdr",
            "output_view_raw"} <= set(OPERATOR_NAMES)
