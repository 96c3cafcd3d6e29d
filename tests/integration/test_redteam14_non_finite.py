"""Red team 14 (issue 33), in real Blender: values that are not numbers.

bpy accepts float("nan") (and infinities) in every float setting and the value survives save and
load; a render reading one draws black or corrupt pixels.  product-lighting passed at 1.000 with
a NaN green channel on an extra light's colour (``light_output``'s max() passed over it), a NaN
aperture blade rotation under depth of field (the blur formula never reads it) and a NaN spot
blend on the rim (a setting the solver chooses: not compared with a default).

* ``probes_scene.snapshot`` reports every value a render reads that is not a number
  (``not_numbers``: objects, light and camera data, materials' node graphs, world, render,
  Cycles / EEVEE and colour settings, at every frame read); ``scene_unchanged`` refuses them in
  what it compares -- kept and added objects alike -- and ``render_overrides`` always (a
  from-scratch task's general check), each naming the data path.
* ``scene_unchanged``'s comparison no longer reads a kept number turned NaN as unchanged.
* ``light_output`` refuses a Power, Exposure, Color, factor or node gain that is not a number;
  product-lighting's ``lights_as_set`` refuses a solver-chosen setting that is not one,
  ``shot_framing`` an aperture setting, ``studio_extras`` bounds so a NaN fails.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.probe_cases import local_probe, probe_local, assert_operators_killed, assert_refused_as_expected, run_bpy, write_rule_task
from verifiers import bpy_procs
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

PROBES = Path(__file__).resolve().parents[2] / "seeds" / "product-lighting" / "draft" / "task_probes.py"

MAKE = r'''
import math
import sys
from pathlib import Path

import bpy
from mathutils import Vector

out = Path(sys.argv[-1])
NAN = float("nan")
CENTRE = Vector((0.0, 0.0, 1.025))


def light(name, kind, location, energy, **settings):
    data = bpy.data.lights.new(name, kind)
    data.energy = energy
    for key, value in settings.items():
        setattr(data, key, value)
    obj = bpy.data.objects.new(name, data)
    obj.location = location
    obj.rotation_euler = (CENTRE - obj.location).to_track_quat("-Z", "Y").to_euler()
    bpy.context.scene.collection.objects.link(obj)
    return obj


def start():
    """A product on the origin with a material and a dark world: the start scene."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=CENTRE)
    product = bpy.context.active_object
    product.name, product.scale = "Product", (0.16, 0.16, 0.25)
    mat = bpy.data.materials.new("Fabric")
    mat.use_nodes = True
    product.data.materials.append(mat)
    world = bpy.data.worlds.new("Studio")
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Strength"].default_value = 0.02
    bpy.context.scene.world = world


def rig():
    """The start scene lit by key, fill and a spot rim, filmed by an 85 mm camera in front."""
    start()
    light("Key", "AREA", (-1.0, -1.0, 2.0), 60.0, size=0.6)
    light("Fill", "AREA", (1.4, -1.2, 1.3), 15.0, size=1.0)
    light("Rim", "SPOT", (0.0, 1.2, 2.1), 80.0, spot_size=math.radians(40), spot_blend=0.3)
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    bpy.context.scene.collection.objects.link(cam)
    cam.data.lens = 85.0
    cam.location = CENTRE + Vector((0.0, -2.6, 0.36))
    cam.rotation_euler = (CENTRE - cam.location).to_track_quat("-Z", "Y").to_euler()
    bpy.context.scene.camera = cam
    return cam


def save(name):
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


start()
save("start")

# honest: a weak bounce light and depth of field at f/128 focused on the product
cam = rig()
light("Bounce", "POINT", CENTRE + Vector((2.0, -2.0, 0.8)), 10.0)
cam.data.dof.use_dof, cam.data.dof.focus_object, cam.data.dof.aperture_fstop = True, bpy.data.objects["Product"], 128.0
cam.data.dof.aperture_blades = 6
save("rig")

rig()
light("Bounce", "POINT", CENTRE + Vector((2.0, -2.0, 0.8)), 10.0, color=(1.0, NAN, 1.0))
save("nan_tint_bounce")

cam = rig()
cam.data.dof.use_dof, cam.data.dof.focus_object, cam.data.dof.aperture_fstop = True, bpy.data.objects["Product"], 128.0
cam.data.dof.aperture_blades, cam.data.dof.aperture_rotation = 6, NAN
save("bokeh_nan_rotation")

rig()
bpy.data.objects["Rim"].data.spot_blend = NAN
save("rim_nan_blend")

# the leads: a NaN area size and a NaN radius on extra lights
rig()
light("Card", "AREA", CENTRE + Vector((-2.0, -2.0, 0.2)), 5.0, size=NAN)
save("nan_area_size")

rig()
light("Kicker", "POINT", CENTRE + Vector((2.0, 1.5, 0.5)), 5.0, shadow_soft_size=NAN)
save("nan_radius")

# the kept set: a material socket, the world and a render setting turned NaN or infinite
rig()
bpy.data.materials["Fabric"].node_tree.nodes["Principled BSDF"].inputs["Roughness"].default_value = NAN
save("nan_roughness")

rig()
bpy.context.scene.world.node_tree.nodes["Background"].inputs["Strength"].default_value = NAN
save("nan_world")

rig()
bpy.context.scene.view_settings.exposure = NAN  # a range clamps an infinity, never a NaN
save("nan_exposure")

rig()
light("Blaze", "POINT", CENTRE + Vector((2.0, -2.0, 0.8)), math.inf)
save("inf_power")

# a camera shift a solver sets in a from-scratch scene
cam = rig()
cam.data.shift_x = NAN
save("nan_shift")
'''

KEPT = {
    "OBJECTS": ("scene_unchanged", {"sections": ["objects"], "allow_new": {"types": ["LIGHT", "CAMERA"]},
                                    "allow_changed": {"render": ["camera"]}}),
    "RENDER": ("scene_unchanged", {"sections": ["render"], "allow_changed": {"render": ["camera"]}}),
    "LIVE": ("lights_as_set", {"objects": ["Key", "Fill", "Rim"]}),
    "POWER": ("light_power", {"exclude": ["Key", "Fill", "Rim"], "min_power": 0, "max_power": 15}),
    "EXTRAS": ("studio_extras", {"expected": ["Key", "Fill", "Rim"], "max_power": 15, "max_world": 0.05}),
    "FRAMING": ("shot_framing", {"camera": "Camera", "target": "Product", "min_fill": 0.05, "max_blur_px": 2}),
}
SCRATCH = {"OVERRIDES": ("render_overrides", {})}
# (task, delivery) -> {criterion: what its detail names}
EXPECTED = {
    ("kept", "rig"): {},
    ("kept", "nan_tint_bounce"): {"OBJECTS": "not a number: Bounce light.color[1]",
                                  "POWER": "Color not a number", "EXTRAS": "Color not a number"},
    ("kept", "bokeh_nan_rotation"): {"OBJECTS": "not a number: Camera camera.dof.aperture_rotation",
                                     "FRAMING": "dof_numbers"},
    ("kept", "rim_nan_blend"): {"OBJECTS": "not a number: Rim light.spot_blend",
                                "LIVE": "spot_blend nan (not a number)"},
    ("kept", "nan_area_size"): {"OBJECTS": "not a number: Card light.size"},
    ("kept", "nan_radius"): {"OBJECTS": "not a number: Kicker light.shadow_soft_size"},
    # a kept value turned NaN is a change, and not a number
    ("kept", "nan_roughness"): {"OBJECTS": "not a number: Product material Fabric.node_tree.nodes.Principled BSDF"},
    ("kept", "nan_world"): {"RENDER": "world_nodes", "EXTRAS": "world too bright"},
    ("kept", "nan_exposure"): {"RENDER": "not a number: exposure (frame 1)"},
    ("kept", "inf_power"): {"OBJECTS": "not a number: Blaze light.energy", "POWER": "Power not a number",
                            "EXTRAS": "Blaze"},
    ("scratch", "rig"): {},
    ("scratch", "nan_tint_bounce"): {"OVERRIDES": "Bounce light.color[1] (frame 1)"},
    ("scratch", "bokeh_nan_rotation"): {"OVERRIDES": "Camera camera.dof.aperture_rotation (frame 1)"},
    ("scratch", "rim_nan_blend"): {"OVERRIDES": "Rim light.spot_blend (frame 1)"},
    ("scratch", "nan_roughness"): {"OVERRIDES": "Product material Fabric.node_tree.nodes.Principled BSDF.inputs"},
    ("scratch", "nan_world"): {"OVERRIDES": "world_nodes.nodes.Background.inputs"},
    ("scratch", "nan_exposure"): {"OVERRIDES": "exposure (frame 1)"},
    ("scratch", "nan_shift"): {"OVERRIDES": "Camera camera.shift_x (frame 1)"},
}
NEW_OPERATORS = ("light_colour_nan", "camera_nan_setting", "light_blend_nan")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam14-non-finite")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    kept = write_rule_task(tmp / "kept", KEPT, "redteam14-kept")
    run_bpy(bpy_procs.VERIFIERS / "scene_snapshot.py", "--blend", tmp / "start.blend",
            "--out", tmp / "kept" / "start_scene.json")
    scratch = write_rule_task(tmp / "scratch", SCRATCH, "redteam14-scratch", start_mode="from_scratch")
    return {"tmp": tmp, "kept": kept, "scratch": scratch}


@pytest.mark.parametrize(("task", "delivery"), sorted(EXPECTED))
def test_values_that_are_not_numbers_are_refused(scenes, task, delivery):
    task_path, rubric = scenes[task]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task_path, rubric,
                                   scenes["tmp"] / f"report-{task}-{delivery}.json", PROBES)
    assert_refused_as_expected(report, EXPECTED[(task, delivery)], delivery)


def test_the_new_operators_apply_and_are_killed(scenes):
    task_path, rubric = scenes["kept"]
    with local_probe() as probe:
        rows = probe.mutate(scenes["tmp"] / "rig.blend", task_path, rubric, PROBES, operators=list(NEW_OPERATORS))
    assert_operators_killed(rows, {"light_colour_nan": {"OBJECTS", "POWER", "EXTRAS"}, "camera_nan_setting": {"OBJECTS", "FRAMING"},
                                   "light_blend_nan": {"OBJECTS", "LIVE"}})


def test_the_new_operators_are_listed():
    assert set(NEW_OPERATORS) <= set(OPERATOR_NAMES)
