"""The material graph evaluated over the part's surface (verifiers/probes_surface.py) in real
Blender: for each trick that read one path of the node graph -- an image whose Vector input is a
constant coordinate, a Mix factor linked to a Value node 0, RGB Curves / Color Ramp / Invert /
Hue-Saturation changing the colour, displacement that wrecks the surface, alpha or emission
through a side path -- a scene that fails, and the honest scene beside it that passes; plus the
honest cases (UV-mapped image, tiled by a Mapping node, a node group) and a procedural texture,
which the evaluator does not evaluate: Unknown, which never meets a requirement."""

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
RED = (0.8, 0.1, 0.1, 1.0)

# a 64 x 64 image of varied colours (every texel differs from its neighbours), packed
grid = bpy.data.images.new("Grid", 64, 64)
px = []
for y in range(64):
    for x in range(64):
        px += [x / 63, y / 63, ((x * 7 + y * 13) % 64) / 63, 1.0]
grid.pixels[:] = px
grid.pack()

X = [0.0]


def part(name, mat):
    """A 1 m cube (with its default UV map) carrying ``mat`` on every face."""
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(X[0], 0, 0.5))
    X[0] += 2
    obj = bpy.context.active_object
    obj.name = name
    obj.data.materials.append(mat)
    return obj


def material(name, colour=RED):
    mat = bpy.data.materials.new(name)
    tree = mat.node_tree
    bsdf = tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = colour
    return mat, tree, bsdf


def node(tree, kind, **inputs):
    n = tree.nodes.new(kind)
    for key, value in inputs.items():
        n.inputs[key].default_value = value
    return n


def link(tree, a, b):
    tree.links.new(a, b)


def textured(name, vector=None):
    """The Grid image on Base Color; ``vector`` (an output socket maker) into its Vector input."""
    mat, tree, bsdf = material(name)
    tex = tree.nodes.new("ShaderNodeTexImage")
    tex.image = grid
    link(tree, tex.outputs["Color"], bsdf.inputs["Base Color"])
    if vector is not None:
        link(tree, vector(tree), tex.inputs["Vector"])
    return mat, tree, bsdf, tex


# --- texture coordinates -------------------------------------------------------------------
part("UVMapped", textured("UVMapped")[0])


def constant_vector(tree):
    return node(tree, "ShaderNodeCombineXYZ", X=0.3, Y=0.6, Z=0.0).outputs[0]


part("ConstVector", textured("ConstVector", constant_vector)[0])


def mapping(scale):
    def make(tree):
        coords = tree.nodes.new("ShaderNodeTexCoord")
        m = tree.nodes.new("ShaderNodeMapping")
        m.inputs["Scale"].default_value = (scale, scale, 1.0)
        link(tree, coords.outputs["UV"], m.inputs["Vector"])
        return m.outputs[0]
    return make


part("Tiled", textured("Tiled", mapping(4.0))[0])
part("Shrunk", textured("Shrunk", mapping(0.001))[0])

# --- a Mix factor linked to a Value node ----------------------------------------------------


def value_mix(name, value):
    mat, tree, bsdf, tex = textured(name)
    mix = tree.nodes.new("ShaderNodeMix")
    mix.data_type = "RGBA"
    mix.inputs["A"].default_value = RED
    v = tree.nodes.new("ShaderNodeValue")
    v.outputs[0].default_value = value
    link(tree, v.outputs[0], mix.inputs["Factor"])
    link(tree, tex.outputs["Color"], mix.inputs["B"])
    link(tree, mix.outputs["Result"], bsdf.inputs["Base Color"])
    return mat


part("FactorZero", value_mix("FactorZero", 0.0))
part("FactorOne", value_mix("FactorOne", 1.0))

# --- colour changed on the way -------------------------------------------------------------


def through(name, kind, colour=RED, setup=None, **inputs):
    mat, tree, bsdf = material(name)
    rgb = tree.nodes.new("ShaderNodeRGB")
    rgb.outputs[0].default_value = colour
    n = node(tree, kind, **inputs)
    if setup is not None:
        setup(n)
    link(tree, rgb.outputs[0], n.inputs["Color"] if "Color" in n.inputs else n.inputs[0])
    link(tree, n.outputs[0], bsdf.inputs["Base Color"])
    return mat


def blue_curve(n):  # R -> 0, B -> 1 for every input
    n.mapping.curves[0].points[1].location = (1.0, 0.0)
    n.mapping.curves[2].points[0].location = (0.0, 1.0)
    n.mapping.update()


part("CurvesBlue", through("CurvesBlue", "ShaderNodeRGBCurve", setup=blue_curve))
part("CurvesIdentity", through("CurvesIdentity", "ShaderNodeRGBCurve"))
part("InvertOn", through("InvertOn", "ShaderNodeInvert"))
part("InvertOff", through("InvertOff", "ShaderNodeInvert", Fac=0.0))
part("HueShift", through("HueShift", "ShaderNodeHueSaturation", Hue=0.0))
part("HueKept", through("HueKept", "ShaderNodeHueSaturation"))


def ramp(name, colour):
    mat, tree, bsdf = material(name, (0.5, 0.5, 0.5, 1.0))
    v = tree.nodes.new("ShaderNodeValue")
    v.outputs[0].default_value = 0.3
    r = tree.nodes.new("ShaderNodeValToRGB")
    r.color_ramp.elements[0].color = colour
    r.color_ramp.elements[1].color = colour
    link(tree, v.outputs[0], r.inputs["Fac"])
    link(tree, r.outputs["Color"], bsdf.inputs["Base Color"])
    return mat


part("RampGreen", ramp("RampGreen", (0.1, 0.8, 0.1, 1.0)))
part("RampRed", ramp("RampRed", RED))

# curves flattening a texture to one colour: the texture never shows
mat, tree, bsdf, tex = textured("CurvesFlat")
curves = tree.nodes.new("ShaderNodeRGBCurve")
curves.mapping.curves[3].points[0].location = (0.0, 0.5)
curves.mapping.curves[3].points[1].location = (1.0, 0.5)
curves.mapping.update()
link(tree, tex.outputs["Color"], curves.inputs["Color"])
link(tree, curves.outputs["Color"], bsdf.inputs["Base Color"])
part("CurvesFlat", mat)

# --- displacement -----------------------------------------------------------------------------


def displaced(name, height, method):
    mat, tree, bsdf = material(name)
    mat.displacement_method = method
    d = node(tree, "ShaderNodeDisplacement", Height=height, Scale=1.0)
    link(tree, d.outputs[0], tree.nodes["Material Output"].inputs["Displacement"])
    return mat


part("Wrecked", displaced("Wrecked", 3.0, "DISPLACEMENT"))
part("BumpFlat", displaced("BumpFlat", 3.0, "BUMP"))  # a constant bump shows nothing
mat, tree, bsdf, tex = textured("BumpRelief")
mat.displacement_method = "BUMP"
d = node(tree, "ShaderNodeDisplacement", Scale=2.0)
link(tree, tex.outputs["Alpha"], d.inputs["Height"])
link(tree, tex.outputs["Color"], d.inputs["Height"])
link(tree, d.outputs[0], tree.nodes["Material Output"].inputs["Displacement"])
part("BumpRelief", mat)

# --- alpha and emission through side paths ---------------------------------------------------
mat, tree, bsdf = material("AlphaMath")
m = node(tree, "ShaderNodeMath", Value=0.5)
m.operation = "MULTIPLY"
m.inputs[1].default_value = 0.0
link(tree, m.outputs[0], bsdf.inputs["Alpha"])
part("AlphaMath", mat)


def shader_mix(name, value, other):
    mat, tree, bsdf = material(name)
    mix = tree.nodes.new("ShaderNodeMixShader")
    v = tree.nodes.new("ShaderNodeValue")
    v.outputs[0].default_value = value
    second = tree.nodes.new(other)
    if other == "ShaderNodeEmission":
        second.inputs["Color"].default_value = RED
        second.inputs["Strength"].default_value = 10.0
    link(tree, v.outputs[0], mix.inputs["Fac"])
    link(tree, bsdf.outputs[0], mix.inputs[1])
    link(tree, second.outputs[0], mix.inputs[2])
    link(tree, mix.outputs[0], tree.nodes["Material Output"].inputs["Surface"])
    return mat


part("SeeThrough", shader_mix("SeeThrough", 0.9, "ShaderNodeBsdfTransparent"))
part("Vanished", shader_mix("Vanished", 1.0, "ShaderNodeBsdfTransparent"))
part("Glowing", shader_mix("Glowing", 0.5, "ShaderNodeEmission"))
part("GlowOff", shader_mix("GlowOff", 0.0, "ShaderNodeEmission"))

# --- node group, procedural textures ----------------------------------------------------------
group = bpy.data.node_groups.new("Paint", "ShaderNodeTree")
group.interface.new_socket("Shade", in_out="INPUT", socket_type="NodeSocketFloat")
group.interface.new_socket("Colour", in_out="OUTPUT", socket_type="NodeSocketColor")
gin, gout = group.nodes.new("NodeGroupInput"), group.nodes.new("NodeGroupOutput")
gmix = group.nodes.new("ShaderNodeMix")
gmix.data_type = "RGBA"
gmix.inputs["A"].default_value = (0.0, 0.0, 0.0, 1.0)
gmix.inputs["B"].default_value = RED
group.links.new(gin.outputs[0], gmix.inputs["Factor"])
group.links.new(gmix.outputs["Result"], gout.inputs[0])
mat, tree, bsdf = material("Grouped", (0.5, 0.5, 0.5, 1.0))
g = tree.nodes.new("ShaderNodeGroup")
g.node_tree = group
g.inputs[0].default_value = 1.0
link(tree, g.outputs[0], bsdf.inputs["Base Color"])
part("Grouped", mat)

mat, tree, bsdf = material("Noisy")
noise = tree.nodes.new("ShaderNodeTexNoise")
link(tree, noise.outputs["Color"], bsdf.inputs["Base Color"])
part("Noisy", mat)

# noise only in a Mix branch its factor 0 discards: the surface is plain red
mat, tree, bsdf = material("NoiseDiscarded")
noise = tree.nodes.new("ShaderNodeTexNoise")
mix = tree.nodes.new("ShaderNodeMix")
mix.data_type = "RGBA"
mix.inputs["Factor"].default_value = 0.0
mix.inputs["A"].default_value = RED
link(tree, noise.outputs["Color"], mix.inputs["B"])
link(tree, mix.outputs["Result"], bsdf.inputs["Base Color"])
part("NoiseDiscarded", mat)

bpy.ops.wm.save_as_mainfile(filepath=sys.argv[-1])
'''

RED = [0.8, 0.1, 0.1]
P = "BSDF_PRINCIPLED"


def red(obj: str, **extra) -> tuple:
    return ("surface_shader", {"object": obj, "shader": P, "base_color": RED, **extra})


# (method, params, expected score): each trick's failing scene beside its honest one
CASES = [
    # texture coordinates reach the image: UV map, tiling; a constant or shrunk vector shows one texel
    ("texture_influence", {"object": "UVMapped", "image": "Grid"}, 1.0),
    ("texture_influence", {"object": "ConstVector", "image": "Grid"}, 0.0),
    ("texture_influence", {"object": "Tiled", "image": "Grid"}, 1.0),
    ("texture_influence", {"object": "Shrunk", "image": "Grid"}, 0.0),
    # a Mix factor linked to a Value node
    ("texture_influence", {"object": "FactorZero", "image": "Grid"}, 0.0),
    ("texture_influence", {"object": "FactorOne", "image": "Grid"}, 1.0),
    (*red("FactorZero"), 1.0),
    # curves / ramp / invert / hue change the colour
    (*red("CurvesBlue"), 0.5),
    (*red("CurvesIdentity"), 1.0),
    ("texture_influence", {"object": "CurvesFlat", "image": "Grid"}, 0.0),
    (*red("RampGreen"), 0.5),
    (*red("RampRed"), 1.0),
    (*red("InvertOn"), 0.5),
    (*red("InvertOff"), 1.0),
    (*red("HueShift"), 0.5),
    (*red("HueKept"), 1.0),
    ("base_color", {"object": "CurvesBlue", "expected": RED, "max_delta_e": 3}, 0.0),
    ("base_color", {"object": "CurvesIdentity", "expected": RED, "max_delta_e": 3}, 1.0),
    ("base_color", {"object": "RampRed", "expected": RED, "max_delta_e": 3, "source": "principled"}, 1.0),
    # displacement
    # the render shows a displaced surface, not the mesh: every criterion naming the part scores 0
    (*red("Wrecked", max_displacement=0.01), 0.0),
    (*red("BumpFlat", max_displacement=0.01), 1.0),
    # a varying bump re-shades like a linked Normal (red team 13): the shader check fails too
    ("surface_shader", {"object": "BumpRelief", "shader": P, "max_displacement": 0.01}, 0.0),
    (*red("CurvesIdentity", max_displacement=0.01), 1.0),
    # alpha and emission through side paths
    (*red("AlphaMath", min_alpha=0.99), 1 / 3),  # alpha 0: no red shows either
    (*red("SeeThrough", min_alpha=0.99), 1 / 3),  # 0.9 of the surface is a Transparent BSDF
    (*red("GlowOff", min_alpha=0.99, max_emission=0.01), 1.0),
    (*red("Glowing", max_emission=0.01), 1 / 3),  # emission, and half the surface is not Principled
    ("material_on_faces", {"object": "Vanished", "material": "Vanished"}, 0.0),
    ("material_on_faces", {"object": "GlowOff", "material": "GlowOff"}, 1.0),
    # a node group is evaluated; a procedural texture is Unknown, unless its branch is discarded
    (*red("Grouped"), 1.0),
    (*red("Noisy"), 0.5),
    ("surface_shader", {"object": "Noisy", "shader": P, "max_emission": 0.01, "min_alpha": 1}, 1.0),
    (*red("NoiseDiscarded"), 1.0),
    # a rubric that allows a normal map allows the bump: only the relief bound fails
    ("surface_shader", {"object": "BumpRelief", "shader": P, "max_displacement": 0.01, "allow_normal_map": True}, 0.5),
]


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("surface_graph")
    script, blend = tmp / "scene.py", tmp / "scene.blend"
    script.write_text(SCENE)
    run_bpy(str(script), str(blend))
    write_rule_task(tmp, {f"G{i:02d}": (m, p) for i, (m, p, _) in enumerate(CASES)}, "probes-surface-graph")
    out = probe_local(blend, tmp / "task.json", tmp / "rubric.json", tmp / "report.json")
    return {c["id"]: c for c in out["criteria"]}


@pytest.mark.parametrize(("index", "case"), list(enumerate(CASES)),
                         ids=[f"{m}-{p.get('object')}-{i}" for i, (m, p, _) in enumerate(CASES)])
def test_case_scores(report, index, case):
    method, params, want = case
    entry = report[f"G{index:02d}"]
    assert entry["score"] == pytest.approx(want, abs=1e-6), f"{method} {params}: {entry}"
    assert entry["passed"] is (want == 1.0)


def _row(report, index: int) -> dict:
    return report[f"G{index:02d}"]["evidence"]["nodes"][0]


def test_texture_measures_explain_the_verdicts(report):
    honest, constant, tiled, shrunk = (_row(report, i) for i in range(4))
    assert honest["influence"] == pytest.approx(1.0, abs=1e-6) and honest["coverage"] > 0.3
    assert constant["influence"] == pytest.approx(1.0, abs=1e-6) and constant["coverage"] <= 1 / 256
    assert tiled["coverage"] > 0.95  # nearly every cell: the samples fall where the file's digest puts them
    assert shrunk["coverage"] <= 1 / 256
    # factor 0: the image is never sampled where it could reach the input
    assert report["G04"]["evidence"]["nodes"] == [] and "does not reach 'Base Color'" in report["G04"]["detail"]
    assert _row(report, 9)["influence"] == 0.0  # flattened by curves


def test_surface_measures_explain_the_verdicts(report):
    blue = report["G07"]["measured"]["CurvesBlue"]
    assert blue["base_color"] == pytest.approx([0.0, 0.1, 1.0], abs=1e-3)
    assert report["G12"]["measured"]["InvertOn"]["base_color"] == pytest.approx([0.2, 0.9, 0.9], abs=1e-3)
    wrecked = report["G19"]
    # 2.5 m along each face's own normal: the corners of a flat cube's vertex move 2.5 x sqrt(2) apart
    # (displacement_tear, red team 30), more than the surface moves
    assert wrecked["evidence"] == {"displaced_in_render": ["Wrecked"]} and "moved up to 3.5355 m" in wrecked["detail"]
    assert report["G20"]["measured"]["BumpFlat"]["displacement"] == pytest.approx(0.0)
    assert report["G23"]["measured"]["AlphaMath"]["alpha"] == pytest.approx(0.0)
    assert report["G24"]["measured"]["SeeThrough"]["alpha"] == pytest.approx(0.1)
    glowing = report["G26"]["measured"]["Glowing"]
    assert glowing["emission"] == pytest.approx(4.0) and glowing["closures"] == {P: 0.5, "EMISSION": 0.5}
    assert "transparent on 1.000" in report["G27"]["detail"]
    noisy = report["G30"]
    assert "procedural texture TEX_NOISE" in noisy["detail"] and noisy["measured"]["Noisy"]["base_color"] is None
