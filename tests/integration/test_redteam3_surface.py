"""Red team 3 (issue 33), surface: the Principled inputs beyond Base Color that change what a
render shows.  A dielectric IOR of 1000 (or a Coat IOR of 1000 under a coat) renders a mirror, a
Specular IOR Level above 1 likewise, a thin film tints the reflection, and a linked Normal input
(an inverted Geometry Normal, a Bump over Noise) re-shades the part.  ``surface_shader`` refuses
each by default (the shader check, and the colour judged is not the one shown), and accepts them
where the rubric widens the bound.  Each failing scene stands beside an honest one that passes.
One scene, one probe run."""

from __future__ import annotations


import pytest

from tests.probe_cases import probe_local, write_rule_task
from tests.bpy_forks import run_bpy


pytestmark = pytest.mark.blender

SCENE = '''
import sys
import bpy

scene = bpy.context.scene
scene.render.engine = "BLENDER_EEVEE"
for obj in list(bpy.data.objects):
    bpy.data.objects.remove(obj)
TEAL = (0.0232, 0.159, 0.184, 1.0)  # #2A6F77, linear
placed = [0]


def principled(name, **inputs):
    mat = bpy.data.materials.new(name)
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = TEAL
    for key, value in inputs.items():
        bsdf.inputs[key].default_value = value
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(2.0 * placed[0], 0, 0.5))
    placed[0] += 1
    obj = bpy.context.active_object
    obj.name = "Box" + name
    obj.data.materials.append(mat)
    return mat, mat.node_tree, bsdf


principled("Glaze", **{"IOR": 1.52, "Coat Weight": 0.3})
principled("Mirror", **{"IOR": 1000.0})
principled("SpecularHot", **{"Specular IOR Level": 2.0})
principled("Film", **{"Thin Film Thickness": 320.0, "Thin Film IOR": 2.2})
principled("CoatMirror", **{"Coat Weight": 1.0, "Coat IOR": 1000.0})
principled("CoatIorNoCoat", **{"Coat Weight": 0.0, "Coat IOR": 1000.0})

_mat, tree, bsdf = principled("Inverted")
geometry = tree.nodes.new("ShaderNodeNewGeometry")
flip = tree.nodes.new("ShaderNodeVectorMath")
flip.operation = "SCALE"
flip.inputs["Scale"].default_value = -1.0
tree.links.new(geometry.outputs["Normal"], flip.inputs[0])
tree.links.new(flip.outputs["Vector"], bsdf.inputs["Normal"])

_mat, tree, bsdf = principled("Bumped")
noise = tree.nodes.new("ShaderNodeTexNoise")
bump = tree.nodes.new("ShaderNodeBump")
bump.inputs["Distance"].default_value = 0.05
tree.links.new(noise.outputs["Fac"], bump.inputs["Height"])
tree.links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])

bpy.ops.wm.save_as_mainfile(filepath=sys.argv[-1])
'''

P = "BSDF_PRINCIPLED"
TEAL = "#2A6F77"


def colour(material: str, **extra) -> tuple[str, dict]:
    return "surface_shader", {"material": material, "shader": P, "base_color": TEAL, **extra}


# name -> (method, params, expected score): shader and base colour, both off for a trick
CASES = {
    "glaze": (*colour("Glaze"), 1.0),
    "ior_mirror": (*colour("Mirror"), 0.0),
    "ior_mirror_allowed": (*colour("Mirror", max_ior=1000.0), 1.0),
    "specular_hot": (*colour("SpecularHot"), 0.0),
    "specular_hot_allowed": (*colour("SpecularHot", max_specular_level=2.0), 1.0),
    "thin_film": (*colour("Film"), 0.0),
    "thin_film_allowed": (*colour("Film", max_thin_film=400.0), 1.0),
    "coat_mirror": (*colour("CoatMirror"), 0.0),
    "coat_ior_without_coat": (*colour("CoatIorNoCoat"), 1.0),
    "normal_inverted": (*colour("Inverted"), 0.0),
    "normal_inverted_allowed": (*colour("Inverted", allow_normal_map=True), 1.0),
    "normal_bumped": (*colour("Bumped"), 0.0),
    "normal_bumped_allowed": (*colour("Bumped", allow_normal_map=True), 1.0),
    # the shader check alone (no colour graded) refuses it too
    "mirror_shader_only": ("surface_shader", {"material": "Mirror", "shader": P, "max_emission": 0.01}, 0.5),
}


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam3-surface")
    script, blend = tmp / "scene.py", tmp / "scene.blend"
    script.write_text(SCENE)
    run_bpy(str(script), str(blend))
    write_rule_task(tmp, {name: (m, p) for name, (m, p, _) in CASES.items()}, "redteam3-surface")
    out = probe_local(blend, tmp / "task.json", tmp / "rubric.json", tmp / "report.json")
    return {c["id"]: c for c in out["criteria"]}


@pytest.mark.parametrize("name", list(CASES))
def test_case_scores(report, name):
    method, params, want = CASES[name]
    entry = report[name]
    assert entry["score"] == pytest.approx(want, abs=1e-6), f"{method} {params}: {entry}"


def test_the_measures_say_why(report):
    assert report["glaze"]["measured"]["optics"]["ior"] == pytest.approx(1.52)
    assert report["ior_mirror"]["measured"]["optics"]["ior"] == pytest.approx(1000.0)
    assert "IOR 1000" in report["ior_mirror"]["detail"]
    assert report["thin_film"]["measured"]["optics"]["thin_film"] == pytest.approx(320.0)
    assert report["specular_hot"]["measured"]["optics"]["specular_level"] == pytest.approx(2.0)
    assert report["normal_inverted"]["measured"]["optics"]["linked_normals"] == ["Principled BSDF.Normal"]
    assert "Normal input is linked" in report["normal_bumped"]["detail"]
    assert report["ior_mirror"]["expected"]["optics"]["max_ior"] == 3.0
    # the colour judged is the one shown: a mirror's Base Color counts on none of the area
    assert report["ior_mirror"]["measured"]["base_color_share"] == 0.0
