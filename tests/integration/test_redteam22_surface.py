"""Red team 22 (mug-material, fence-array), in real Blender: the surface evaluator follows IEEE
single precision through Math nodes, and ``normals_follow_faces`` judges the shading normal a
material gives as well as the mesh's.

* mug-material passed with Emission Strength = Math Minimum(Exponent(100), 20): exp(100) is +inf
  in float32 and both engines take min(inf, 20) = 20 -- a glowing mug --, while the evaluator's
  Math node mapped inf to 0 and read min(0, 20) = 0.  Math and Vector Math now keep +-inf (and
  the engines' safe functions: x / 0 = 0), a NaN input is a NaN output, and a non-finite value
  read by a shader input (or any node that does not carry it on) is Unknown.
* fence-array passed with the wood's Principled Normal linked to a constant (0, 1, 0): every
  part rendered as if it faced backwards.  ``normals_follow_faces`` now evaluates each linked
  Normal / Coat Normal of the shaders that show at the part's surface samples; an input the
  evaluator cannot read (a Normal Map) is named in the evidence and does not fail.

Each measure has a passing and a failing scene.  Blender runs unsandboxed (LOCAL): everything it
runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import assert_refused_as_expected, probe_local, run_bpy, write_rule_task

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = r'''
import sys
from pathlib import Path

import bpy
import bmesh  # after bpy

out = Path(sys.argv[-1])
TEAL = (0.05, 0.35, 0.35, 1.0)


def math(tree, op, a, b=0.0):
    node = tree.nodes.new("ShaderNodeMath")
    node.operation = op
    for i, v in enumerate((a, b)):
        if isinstance(v, bpy.types.NodeSocket):
            tree.links.new(v, node.inputs[i])
        else:
            node.inputs[i].default_value = v
    return node.outputs[0]


def vector(tree, xyz):
    node = tree.nodes.new("ShaderNodeCombineXYZ")
    for i, v in enumerate(xyz):
        node.inputs[i].default_value = v
    return node.outputs[0]


def scene(name, chain=None):
    """A 1 x 0.2 x 1 m board (front face -Y) with the teal Glaze; ``chain(tree, bsdf)`` adds a trick."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0)
    bmesh.ops.scale(bm, vec=(1.0, 0.2, 1.0), verts=bm.verts)
    mesh = bpy.data.meshes.new("Part")
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new("Part", mesh)
    obj.location.z = 0.5
    bpy.context.scene.collection.objects.link(obj)
    mat = bpy.data.materials.new("Glaze")
    mat.use_nodes = True
    tree = mat.node_tree
    bsdf = tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = TEAL
    bsdf.inputs["Emission Color"].default_value = (1.0, 0.05, 0.6, 1.0)
    if chain is not None:
        chain(tree, bsdf)
    obj.data.materials.append(mat)
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


def emission(make):
    return lambda tree, bsdf: tree.links.new(make(tree), bsdf.inputs["Emission Strength"])


def exp100(tree):
    return math(tree, "EXPONENT", 100.0)


scene("plain")
# +inf kept as both engines keep it: min(inf, 0) = 0, (5 > inf) = 0, 20 / 0 = 0 (safe divide)
scene("inf_min_zero", emission(lambda t: math(t, "MINIMUM", exp100(t), 0.0)))
scene("inf_compared", emission(lambda t: math(t, "MULTIPLY", math(t, "GREATER_THAN", 5.0, exp100(t)), 20.0)))
scene("divide_by_zero", emission(lambda t: math(t, "DIVIDE", 20.0, 0.0)))
# the finding and its routes: min(inf, 20) = 20 glows; inf - inf is NaN; inf into a tint
scene("inf_min_glow", emission(lambda t: math(t, "MINIMUM", exp100(t), 20.0)))
scene("overflow_product", emission(lambda t: math(t, "MINIMUM", math(t, "MULTIPLY", math(t, "EXPONENT", 80.0),
                                                                     math(t, "EXPONENT", 80.0)), 20.0)))
scene("sinh_glow", emission(lambda t: math(t, "MINIMUM", math(t, "SINH", 100.0), 20.0)))
scene("inf_minus_inf", emission(lambda t: math(t, "SUBTRACT", exp100(t), exp100(t))))
scene("nan_compared", emission(lambda t: math(t, "MULTIPLY", math(t, "LESS_THAN", math(t, "SUBTRACT", exp100(t),
                                                                                        exp100(t)), 1.0), 20.0)))
scene("inf_specular_tint", lambda t, b: t.links.new(exp100(t), b.inputs["Specular Tint"]))


def vector_length(tree):  # |(exp(100), 0, 0)| = inf in Vector Math as in both engines
    comb = tree.nodes.new("ShaderNodeCombineXYZ")
    tree.links.new(exp100(tree), comb.inputs[0])
    node = tree.nodes.new("ShaderNodeVectorMath")
    node.operation = "LENGTH"
    tree.links.new(comb.outputs[0], node.inputs[0])
    return math(tree, "MINIMUM", node.outputs["Value"], 20.0)


def ramp_of_inf(tree):  # a Color Ramp reading inf: not modelled
    node = tree.nodes.new("ShaderNodeValToRGB")
    tree.links.new(exp100(tree), node.inputs["Fac"])
    return node.outputs["Alpha"]


scene("vector_length_glow", emission(vector_length))
scene("ramp_of_inf", emission(ramp_of_inf))
scene("nan_typed_emission", lambda t, b: setattr(b.inputs["Emission Strength"], "default_value", float("nan")))
scene("inf_typed_emission", lambda t, b: setattr(b.inputs["Emission Strength"], "default_value", float("inf")))


def normal(make, socket="Normal", coat=0.0):
    def chain(tree, bsdf):
        bsdf.inputs["Coat Weight"].default_value = coat
        tree.links.new(make(tree), bsdf.inputs[socket])
    return chain


def geometry_normal(tree):
    return tree.nodes.new("ShaderNodeNewGeometry").outputs["Normal"]


def normal_map(tree):
    image = bpy.data.images.new("Grain", 64, 64)
    image.generated_type = "COLOR_GRID"
    tex = tree.nodes.new("ShaderNodeTexImage")
    tex.image = image
    node = tree.nodes.new("ShaderNodeNormalMap")
    tree.links.new(tex.outputs["Color"], node.inputs["Color"])
    return node.outputs["Normal"]


scene("normal_geometry", normal(geometry_normal))
scene("normal_map_image", normal(normal_map))
scene("normal_backward", normal(lambda t: vector(t, (0.0, 1.0, 0.0))))
scene("normal_zero", normal(lambda t: vector(t, (0.0, 0.0, 0.0))))
scene("coat_normal_unused", normal(lambda t: vector(t, (0.0, 1.0, 0.0)), "Coat Normal", coat=0.0))
scene("coat_normal_backward", normal(lambda t: vector(t, (0.0, 1.0, 0.0)), "Coat Normal", coat=0.5))
'''

GLAZE_CASES = {"GLAZE": ("surface_shader", {"material": "Glaze", "shader": "BSDF_PRINCIPLED",
                                            "base_color": [0.05, 0.35, 0.35], "max_delta_e": 3.0,
                                            "max_emission": 0.01, "min_alpha": 0.99})}
NORMAL_CASES = {"NORMALS": ("normals_follow_faces", {"objects": ["Part"], "max_angle": 90, "max_share": 0.0})}
# delivery -> {criterion: what its detail names}
GLAZE_EXPECTED = {
    "plain": {}, "inf_min_zero": {}, "inf_compared": {}, "divide_by_zero": {},
    "inf_min_glow": {"GLAZE": "emission"},
    "overflow_product": {"GLAZE": "emission"},
    "sinh_glow": {"GLAZE": "emission"},
    "inf_minus_inf": {"GLAZE": "NaN"},
    "nan_compared": {"GLAZE": "NaN"},
    "inf_specular_tint": {"GLAZE": "infinite value"},
    "vector_length_glow": {"GLAZE": "emission"},
    "ramp_of_inf": {"GLAZE": "infinite value"},
    "nan_typed_emission": {"GLAZE": "emission"},
    "inf_typed_emission": {"GLAZE": "emission"},
}
NORMAL_EXPECTED = {
    "plain": {}, "normal_geometry": {}, "normal_map_image": {}, "coat_normal_unused": {},
    "normal_backward": {"NORMALS": "turned away from their faces: Part"},
    "normal_zero": {"NORMALS": "turned away from their faces: Part"},
    "coat_normal_backward": {"NORMALS": "turned away from their faces: Part"},
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam22_surface")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    return {"tmp": tmp,
            "glaze": write_rule_task(tmp / "glaze", GLAZE_CASES, "redteam22-glaze", start_mode="from_scratch"),
            "normals": write_rule_task(tmp / "normals", NORMAL_CASES, "redteam22-normals", start_mode="from_scratch")}


@pytest.mark.parametrize("delivery", sorted(GLAZE_EXPECTED))
def test_math_follows_ieee_single_precision_and_a_non_finite_shader_input_is_unknown(scenes, delivery):
    task, rubric = scenes["glaze"]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task, rubric,
                         scenes["tmp"] / f"report-glaze-{delivery}.json")
    assert_refused_as_expected(report, GLAZE_EXPECTED[delivery], delivery)


@pytest.mark.parametrize("delivery", sorted(NORMAL_EXPECTED))
def test_a_material_shading_normal_turned_from_its_face_fails(scenes, delivery):
    task, rubric = scenes["normals"]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task, rubric,
                         scenes["tmp"] / f"report-normals-{delivery}.json")
    assert_refused_as_expected(report, NORMAL_EXPECTED[delivery], delivery)
    (crit,) = report["criteria"]
    part = crit["measured"]["Part"]
    if delivery == "normal_map_image":  # an image the part has no UV map to read: named, not failed
        assert "no UV map" in str(part.get("material_normal_not_evaluated")), part
    if delivery in ("normal_backward", "coat_normal_backward"):  # the front face (-Y): 1 of 2.8 m2
        assert 0.35 < part["material_normal_turned_share"] < 0.37, part
