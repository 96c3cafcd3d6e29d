"""Red team 12 (issue 33), in real Blender: a Principled BSDF's reflectance past what its bounds
allow, through a tint Blender does not clamp, and inputs that are not numbers.

* A grey Specular Tint of (2, 2, 2) at IOR 3 and Specular IOR Level 1 (each within its bound, the
  tint grey) makes the dielectric's reflectance at normal incidence 0.25 x 2 x 1 x 2 = 1: the
  glaze renders a mirror.  `surface_shader` now bounds the tint's channels to 0..1 and F0 itself
  (F0 of IOR x 2 x level x the tint's largest channel) to what max_ior and max_specular_level give.
* NaN or inf in a socket met every bound (``abs(NaN) > b`` is False; a NaN layer weight read as
  off; an infinite tint's chroma inf - inf is NaN).  A value that is not a finite number now
  meets no bound.
* The honest edges pass: IOR 3, level 1 and a white tint (F0 0.5), and a full coat at Coat IOR 3
  (a render still shows the teal glaze under it).

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import probe_local, assert_refused_as_expected, build_scenes
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

NAN, INF = "float('nan')", "float('inf')"
DELIVERIES = {  # name: {Principled input: value (Python source)}
    "edge_of_bounds": {"IOR": "3.0", "Specular IOR Level": "1.0", "Specular Tint": "(1.0, 1.0, 1.0, 1.0)"},
    "coat_ior_3": {"Coat Weight": "1.0", "Coat IOR": "3.0", "Coat Roughness": "0.0"},
    "tint_grey_mirror": {"IOR": "3.0", "Specular IOR Level": "1.0", "Specular Tint": "(2.0, 2.0, 2.0, 1.0)"},
    "tint_bright_low_ior": {"Specular Tint": "(4.0, 4.0, 4.0, 1.0)"},
    "tint_negative": {"Specular Tint": "combine -1.0"},  # the socket clamps at 0, a node does not
    "tint_infinite": {"Specular Tint": f"({INF}, {INF}, {INF}, 1.0)"},
    "tint_nan": {"Specular Tint": f"({NAN}, {NAN}, {NAN}, 1.0)"},
    "sheen_weight_nan": {"Sheen Weight": NAN, "Sheen Tint": "(1.0, 0.0, 1.0, 1.0)"},
    "subsurface_weight_nan": {"Subsurface Weight": NAN, "Subsurface Scale": "5.0",
                              "Subsurface Radius": "(1.0, 1.0, 1.0)"},
    "ior_nan": {"IOR": NAN},
    "coat_weight_nan": {"Coat Weight": NAN, "Coat IOR": "1000.0"},
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


for name, values in DELIVERIES.items():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0.0, 0.0, 0.5))
    mat = bpy.data.materials.new("Glaze")
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (*teal(), 1.0)
    bsdf.inputs["Roughness"].default_value = 0.12
    for socket, value in values.items():
        if value.startswith("combine "):
            grey = mat.node_tree.nodes.new("ShaderNodeCombineColor")
            for channel in ("Red", "Green", "Blue"):
                grey.inputs[channel].default_value = float(value.split()[1])
            mat.node_tree.links.new(grey.outputs["Color"], bsdf.inputs[socket])
        else:
            bsdf.inputs[socket].default_value = eval(value)
    bpy.context.active_object.data.materials.append(mat)
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))
''' % repr(DELIVERIES)

CASES = {
    "GLAZE": ("surface_shader", {"material": "Glaze", "shader": "BSDF_PRINCIPLED", "base_color": "#2A6F77",
                                 "max_delta_e": 3.0, "max_emission": 0.01, "min_alpha": 0.99,
                                 "max_transmission": 0.01}),
}
REFLECTANCE = "reflectance at normal incidence"
OUTSIDE = "Specular Tint's channels outside 0..1"
EXPECTED = {
    "edge_of_bounds": {},
    "coat_ior_3": {},
    "tint_grey_mirror": {"GLAZE": REFLECTANCE},
    "tint_bright_low_ior": {"GLAZE": OUTSIDE},
    "tint_negative": {"GLAZE": OUTSIDE},
    "tint_infinite": {"GLAZE": OUTSIDE},
    "tint_nan": {"GLAZE": "Specular Tint's colour (max - min channel) nan"},
    "sheen_weight_nan": {"GLAZE": "Sheen Weight x Sheen Tint nan"},
    "subsurface_weight_nan": {"GLAZE": "Subsurface Scale x Radius nan"},
    "ior_nan": {"GLAZE": "IOR nan outside"},
    "coat_weight_nan": {"GLAZE": "Coat IOR 1000 outside"},
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    return build_scenes(tmp_path_factory.mktemp("redteam12_tint"), MAKE, CASES, "redteam12-tint",
                        start_mode="from_scratch")


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_reflectance_past_the_bounds_and_non_numbers_are_refused(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                                   scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)
    optics = report["criteria"][0]["measured"]["optics"]
    if delivery == "tint_grey_mirror":
        assert optics["reflectance"] == 1.0 and optics["specular_tint_chroma"] == 0.0, optics


def test_the_new_operators_are_listed():
    assert {"specular_tint_overbright", "specular_tint_infinite"} <= set(OPERATOR_NAMES)
