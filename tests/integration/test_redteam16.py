"""Red team 16 (issue 33), in real Blender: a coat over a mirror, a light that swallows the
product, the file's own camera.

* mug-material passed with a smooth coat at Coat IOR 3 over a glaze at IOR 3 and Specular IOR
  Level 1: each bounded alone, together 62 % reflected head-on.  ``surface_shader`` now bounds
  the stacked reflectance (``_stacked_reflectance``).
* product-lighting passed with the Rim's Radius at 2.5 m swallowing the speaker: its
  ``lights_as_set`` ``clear_of`` keeps each rig light's emitter off the product and the plinth
  (that seed's own test: its calibration's gaming sample).
* fence-array passed with a solver-made camera at f/0.1 focused at the lens, and with one
  clipping from 100 m: ``render_overrides`` ``camera_keeps`` judges the camera a render uses.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import local_probe, assert_operators_killed, assert_refused_as_expected, build_scenes, probe_local
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = r'''
import sys
from math import radians
from pathlib import Path

import bpy
import bmesh  # after bpy

out = Path(sys.argv[-1])


def board(name):
    """A 1.2 x 0.8 x 0.04 board on z 0.71-0.75."""
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0)
    bmesh.ops.scale(bm, vec=(1.2, 0.8, 0.04), verts=bm.verts)
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new(name, mesh)
    obj.location.z = 0.73
    bpy.context.scene.collection.objects.link(obj)
    return obj


def glaze(coat_ior, coat_weight, ior=3.0, level=1.0):
    mat = bpy.data.materials.new("Glaze")
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (0.05, 0.35, 0.35, 1.0)
    bsdf.inputs["Roughness"].default_value = 0.1
    bsdf.inputs["IOR"].default_value = ior
    bsdf.inputs["Specular IOR Level"].default_value = level
    bsdf.inputs["Coat Weight"].default_value = coat_weight
    bsdf.inputs["Coat IOR"].default_value = coat_ior
    bsdf.inputs["Coat Roughness"].default_value = 0.0
    return mat


def scene(name, coat=(1.5, 0.0), level=1.0, camera=None):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    top = board("Top")
    top.data.materials.append(glaze(coat[0], coat[1], level=level))
    if camera is not None:
        cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
        bpy.context.scene.collection.objects.link(cam)
        cam.location, cam.rotation_euler = (0.0, -5.0, 0.73), (radians(90), 0.0, 0.0)
        bpy.context.scene.camera = cam
        camera(cam.data)
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


def blurred(cam):
    cam.dof.use_dof, cam.dof.focus_distance, cam.dof.aperture_fstop = True, 0.05, 0.1


def clipped(cam):
    cam.clip_end, cam.clip_start = 1000.0, 100.0


scene("board")
scene("coat_over_glaze", coat=(3.0, 1.0), level=0.5)  # 0.25 + 0.75 x 0.125: under IOR 3 / level 1's 0.5
scene("coat_over_mirror", coat=(3.0, 1.0))  # 0.25 + 0.75 x 0.5 = 0.625
scene("plain_camera", camera=lambda cam: None)
scene("camera_blurred", camera=blurred)
scene("camera_clipped", camera=clipped)
'''

CASES = {
    "GLAZE": ("surface_shader", {"material": "Glaze", "shader": "BSDF_PRINCIPLED", "max_ior": 3.0,
                                  "max_specular_level": 1.0}),
    "RENDER": ("render_overrides", {"camera_keeps": ["Top"]}),
}
# delivery -> {criterion: what its detail names}
EXPECTED = {
    "board": {},
    "plain_camera": {},
    "coat_over_glaze": {},
    "coat_over_mirror": {"GLAZE": "reflectance at normal incidence, the coat's over the layer's"},
    "camera_blurred": {"RENDER": "Cam: depth of field on"},
    "camera_clipped": {"RENDER": "Cam's clip range 100-1000 m cuts Top"},
}
NEW_OPERATORS = ("camera_smears_parts", "camera_clips_parts")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    return build_scenes(tmp_path_factory.mktemp("redteam16"), MAKE, CASES, "redteam16", "from_scratch")


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_a_slot_a_stacked_mirror_and_the_files_camera_are_measured(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                         scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)


def test_the_new_operators_apply_and_are_killed(scenes):
    with local_probe() as probe:
        rows = probe.mutate(scenes["tmp"] / "board.blend", scenes["task"], scenes["rubric"], None,
                            operators=list(NEW_OPERATORS))
    assert_operators_killed(rows, {"camera_smears_parts": {"RENDER"}, "camera_clips_parts": {"RENDER"}})


def test_the_new_operators_are_listed():
    assert set(NEW_OPERATORS) <= set(OPERATOR_NAMES)
