"""Red team 14 (issue 33), in real Blender: a material's Volume socket and its coat.

* The Material Output's Volume renders as well as its Surface: a Principled Volume of density 0
  and emission 50 drew an orange halo round a mug whose Surface was the spec's, and the surface
  checks read only the Surface.  A live Volume shader that glows, absorbs or scatters (on any
  output an engine renders) is now another shader in ``surface_shader``'s optics, its emission
  counts, and the colour judged is not the surface's; ``base_color`` (evaluated) refuses it too.
  A Volume that does nothing (density 0, no emission) renders nothing and passes.
* A coat reflects over the base: Coat Weight 1, Coat IOR 3 and Coat Roughness 1 (each within its
  bound) laid a 25 % white film over the teal.  The colour judged is now the Base Color under the
  film of the coat's spread reflection (Coat Weight x F0 of Coat IOR x Coat Roughness^2), and
  the film itself is bounded (``max_coat_film``, 0.02) where a rubric judges no colour.  A smooth
  full coat at Coat IOR 3 and a clear coat at 1.5 pass.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import probe_local, assert_refused_as_expected, build_scenes
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

# name: (Principled inputs, Volume shader (type, {input: value}) or None, output target of the volume)
DELIVERIES = {
    "honest": ({}, None, "ALL"),
    "volume_glow": ({}, ("ShaderNodeVolumePrincipled", {"Density": 0.0, "Emission Strength": 50.0,
                                                         "Emission Color": (1.0, 0.3, 0.0, 1.0)}), "ALL"),
    "volume_dark_absorption": ({}, ("ShaderNodeVolumeAbsorption", {"Density": 20.0,
                                                                   "Color": (0.0, 0.0, 0.0, 1.0)}), "ALL"),
    "volume_scatter_cycles_output": ({}, ("ShaderNodeVolumeScatter", {"Density": 5.0}), "CYCLES"),
    "volume_emission_node": ({}, ("ShaderNodeEmission", {"Strength": 3.0}), "ALL"),
    "volume_does_nothing": ({}, ("ShaderNodeVolumePrincipled", {"Density": 0.0}), "ALL"),
    "coat_milky": ({"Coat Weight": 1.0, "Coat IOR": 3.0, "Coat Roughness": 1.0,
                    "Coat Tint": (1.0, 1.0, 1.0, 1.0)}, None, "ALL"),
    "coat_satin_ior_2": ({"Coat Weight": 1.0, "Coat IOR": 2.0, "Coat Roughness": 0.6}, None, "ALL"),
    "coat_smooth_ior_3": ({"Coat Weight": 1.0, "Coat IOR": 3.0, "Coat Roughness": 0.03}, None, "ALL"),
    "coat_clear": ({"Coat Weight": 1.0, "Coat IOR": 1.5, "Coat Roughness": 0.1}, None, "ALL"),
}

MAKE = r'''
import sys
from pathlib import Path

import bpy

out = Path(sys.argv[-1])
DELIVERIES = %s


def teal():
    c = [int("2A6F77"[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    return [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in c]


for name, (values, volume, target) in DELIVERIES.items():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0.0, 0.0, 0.5))
    mat = bpy.data.materials.new("Glaze")
    mat.use_nodes = True
    tree = mat.node_tree
    bsdf = tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (*teal(), 1.0)
    bsdf.inputs["Roughness"].default_value = 0.12
    for socket, value in values.items():
        bsdf.inputs[socket].default_value = value
    if volume is not None:
        output = tree.nodes["Material Output"]
        if target != "ALL":  # a second output for one engine: the spec surface, plus the volume
            output = tree.nodes.new("ShaderNodeOutputMaterial")
            output.target = target
            tree.links.new(bsdf.outputs["BSDF"], output.inputs["Surface"])
        shader = tree.nodes.new(volume[0])
        for socket, value in volume[1].items():
            shader.inputs[socket].default_value = value
        tree.links.new(shader.outputs[0], output.inputs["Volume"])
    bpy.context.active_object.data.materials.append(mat)
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))
''' % repr(DELIVERIES)

CASES = {
    "GLAZE": ("surface_shader", {"material": "Glaze", "shader": "BSDF_PRINCIPLED", "base_color": "#2A6F77",
                                 "max_delta_e": 3.0, "max_emission": 0.01, "min_alpha": 0.99,
                                 "max_transmission": 0.01}),
    # no colour judged (a textured part): the coat's film and the Volume are refused all the same
    "SHADER": ("surface_shader", {"material": "Glaze", "shader": "BSDF_PRINCIPLED"}),
    "COLOUR": ("base_color", {"material": "Glaze", "expected": "#2A6F77", "max_delta_e": 3.0}),
    "FACES": ("material_on_faces", {"object": "Cube", "material": "Glaze"}),
}
VOLUME = "Material Output's Volume renders"
FILM = "coat's spread reflection"
EXPECTED = {
    "honest": {},
    "volume_glow": {"GLAZE": VOLUME, "SHADER": VOLUME, "COLOUR": VOLUME},
    "volume_dark_absorption": {"GLAZE": VOLUME, "SHADER": VOLUME, "COLOUR": VOLUME},
    "volume_scatter_cycles_output": {"GLAZE": "under the CYCLES Material Output", "SHADER": VOLUME,
                                     "COLOUR": VOLUME},
    "volume_emission_node": {"GLAZE": VOLUME, "SHADER": VOLUME, "COLOUR": VOLUME},
    "volume_does_nothing": {},
    "coat_milky": {"GLAZE": FILM, "SHADER": FILM, "COLOUR": "within dE2000 3 of expected on 0.000"},
    "coat_satin_ior_2": {"GLAZE": FILM, "SHADER": FILM, "COLOUR": "within dE2000 3 of expected on 0.000"},
    "coat_smooth_ior_3": {},
    "coat_clear": {},
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    return build_scenes(tmp_path_factory.mktemp("redteam14_volume_coat"), MAKE, CASES, "redteam14-volume-coat",
                        start_mode="from_scratch")


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_volume_and_coat_are_judged_as_they_render(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                                   scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)
    glaze = next(c for c in report["criteria"] if c["id"] == "GLAZE")
    if delivery == "volume_glow":  # the Volume's emission counts as the material's
        assert glaze["measured"]["emission"] >= 10, glaze["measured"]
        assert "max_emission" in glaze["evidence"]["failed"], glaze["evidence"]


def test_the_new_operators_are_listed():
    assert {"volume_emission_halo", "coat_milky_white"} <= set(OPERATOR_NAMES)
