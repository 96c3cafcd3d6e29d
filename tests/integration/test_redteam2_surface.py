"""Red team 2 (issue 33), surface: what the material graph shows in a render, measured as the
render computes it.  Each trick the red team got through has a failing scene here beside an
honest one that passes: a negative emission glow, an image blended by Linear interpolation or
premultiplied to black, a Stepped Map Range with 0 steps, a shrunk texture space, a black coat
tint, clear glass called opaque, and textures that do not show what is painted (alpha only,
clamped, read through another UV map, tiled, projected).  One scene, one probe run."""

from __future__ import annotations


import pytest

from tests.probe_cases import local_probe, probe_local, write_rule_task
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
RED = (0.8, 0.0, 0.0, 1.0)


def principled(name, **inputs):
    mat = bpy.data.materials.new(name)
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = TEAL
    for key, value in inputs.items():
        bsdf.inputs[key].default_value = value
    return mat, mat.node_tree, bsdf


def cube(name, mat, x=0.0):
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(x, 0, 0.5))
    obj = bpy.context.active_object
    obj.name = name
    obj.data.materials.append(mat)
    return obj


def value(tree, v):
    node = tree.nodes.new("ShaderNodeValue")
    node.outputs[0].default_value = v
    return node.outputs[0]


def float_image(name, w, h, rgba):
    img = bpy.data.images.new(name, w, h, alpha=True, float_buffer=True)
    img.colorspace_settings.name = "Linear Rec.709"
    img.pixels[:] = [c for px in rgba for c in px]
    img.pack()
    return img


def image_at(tree, img, x, y, interpolation="Linear"):
    tex = tree.nodes.new("ShaderNodeTexImage")
    tex.image, tex.interpolation, tex.extension = img, interpolation, "EXTEND"
    point = tree.nodes.new("ShaderNodeCombineXYZ")
    point.inputs["X"].default_value, point.inputs["Y"].default_value = x, y
    tree.links.new(point.outputs[0], tex.inputs["Vector"])
    return tex


plain, _, _ = principled("Plain")

# emission: strength -4 x colour (-1, -0.8, 0) is a (4, 3.2, 0) glow
glow, tree, bsdf = principled("NegativeGlow")
comb = tree.nodes.new("ShaderNodeCombineColor")
for i, c in enumerate((-1.0, -0.8, 0.0)):
    tree.links.new(value(tree, c), comb.inputs[i])
tree.links.new(comb.outputs[0], bsdf.inputs["Emission Color"])
tree.links.new(value(tree, -4.0), bsdf.inputs["Emission Strength"])

# a 2 x 1 image [teal, red] read at (0.4999, 0.5): Linear blends both, Closest reads teal
pair = float_image("Pair", 2, 1, [TEAL, RED])
for name, interpolation in (("PairLinear", "Linear"), ("PairClosest", "Closest")):
    mat, tree, bsdf = principled(name)
    tex = image_at(tree, pair, 0.4999, 0.5, interpolation)
    tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])

# a teal texel of alpha 0 renders black (premultiplied); alpha 1 renders teal
for name, alpha in (("SwatchClear", 0.0), ("SwatchSolid", 1.0)):
    mat, tree, bsdf = principled(name)
    tex = image_at(tree, float_image(name, 1, 1, [(*TEAL[:3], alpha)]), 0.5, 0.5)
    tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])

# a teal texel of alpha 0.5 in a byte image (stored straight, as sRGB levels): premultiplied (half
# as bright) unless the Alpha output reaches the output (here into Principled Alpha as alpha x 0 + 1);
# a link into a dead end changes nothing
for name, use in (("HalfUnused", None), ("HalfUsed", "output"), ("HalfDeadEnd", "dead")):
    mat, tree, bsdf = principled(name)
    half = bpy.data.images.new(name, 1, 1, alpha=True)
    half.pixels[:] = [0x2A / 255, 0x6F / 255, 0x77 / 255, 0.5]
    half.pack()
    tex = image_at(tree, half, 0.5, 0.5)
    tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    if use is not None:
        one = tree.nodes.new("ShaderNodeMath")
        one.operation = "MULTIPLY_ADD"
        one.inputs[1].default_value, one.inputs[2].default_value = 0.0, 1.0
        tree.links.new(tex.outputs["Alpha"], one.inputs[0])
        if use == "output":
            tree.links.new(one.outputs[0], bsdf.inputs["Alpha"])

# Mix (A teal, B red) by a Stepped Map Range of Value 1 from 0..1 to 1..0: 0 steps give To Min (1)
for name, steps in (("StepsZero", 0.0), ("StepsFour", 4.0)):
    mat, tree, bsdf = principled(name)
    mr = tree.nodes.new("ShaderNodeMapRange")
    mr.interpolation_type = "STEPPED"
    mr.inputs["Value"].default_value = 1.0
    mr.inputs["To Min"].default_value, mr.inputs["To Max"].default_value = 1.0, 0.0
    mr.inputs["Steps"].default_value = steps
    mix = tree.nodes.new("ShaderNodeMix")
    mix.data_type = "RGBA"
    mix.inputs["A"].default_value, mix.inputs["B"].default_value = TEAL, RED
    tree.links.new(mr.outputs["Result"], mix.inputs["Factor"])
    tree.links.new(mix.outputs["Result"], bsdf.inputs["Base Color"])

# Mix (teal, red) by Generated Z > 1: red only where the texture space is shrunk
gen, tree, bsdf = principled("GeneratedZ")
coord, sep = tree.nodes.new("ShaderNodeTexCoord"), tree.nodes.new("ShaderNodeSeparateXYZ")
gt = tree.nodes.new("ShaderNodeMath")
gt.operation = "GREATER_THAN"
gt.inputs[1].default_value = 1.0
mix = tree.nodes.new("ShaderNodeMix")
mix.data_type = "RGBA"
mix.inputs["A"].default_value, mix.inputs["B"].default_value = TEAL, RED
tree.links.new(coord.outputs["Generated"], sep.inputs[0])
tree.links.new(sep.outputs["Z"], gt.inputs[0])
tree.links.new(gt.outputs[0], mix.inputs["Factor"])
tree.links.new(mix.outputs["Result"], bsdf.inputs["Base Color"])
cube("AutoSpace", gen, x=0)
shrunk = cube("ShrunkSpace", gen, x=2)
shrunk.data.use_auto_texspace = False
shrunk.data.texspace_size = (0.5, 0.5, 0.15)
shrunk.data.texspace_location = (0.0, 0.0, -0.45)

# a full coat: black tint hides the Base Color, white leaves it
principled("CoatBlack", **{"Coat Weight": 1.0, "Coat Tint": (0, 0, 0, 1)})
principled("CoatWhite", **{"Coat Weight": 1.0, "Coat Tint": (1, 1, 1, 1)})

# clear glass: alpha 1, Transmission 1
glass, _, _ = principled("Glass", **{"Transmission Weight": 1.0, "Roughness": 0.0})
cube("GlassBox", glass, x=4)

# textures on cubes with two UV maps: the render-active UVMap and Other (every face the whole tile)
grid = float_image("Grid", 8, 8, [((x + 0.5) / 8, (y + 0.5) / 8, 0.5, 1.0) for y in range(8) for x in range(8)])
pale = float_image("Pale", 8, 8, [(0.9, 0.9, 0.9, 1.0)] * 64)


def textured(name, x, image=grid):
    mat, tree, bsdf = principled(name)
    tex = tree.nodes.new("ShaderNodeTexImage")
    tex.image = image
    obj = cube(name, mat, x=x)
    other = obj.data.uv_layers.new(name="Other")
    for poly in obj.data.polygons:
        for k, loop in enumerate(poly.loop_indices):
            other.data[loop].uv = ((0, 0), (1, 0), (1, 1), (0, 1))[k % 4]
    obj.data.uv_layers["UVMap"].active_render = True
    return mat, tree, bsdf, tex


mat, tree, bsdf, tex = textured("TexDirect", 10)
tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])

mat, tree, bsdf, tex = textured("TexOtherUV", 12)
uvnode = tree.nodes.new("ShaderNodeUVMap")
uvnode.uv_map = "Other"
tree.links.new(uvnode.outputs["UV"], tex.inputs["Vector"])
tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])

mat, tree, bsdf, tex = textured("TexTiled", 14)
coord, mapping = tree.nodes.new("ShaderNodeTexCoord"), tree.nodes.new("ShaderNodeMapping")
mapping.inputs["Scale"].default_value = (4.0, 4.0, 1.0)
tex.extension = "REPEAT"
tree.links.new(coord.outputs["UV"], mapping.inputs["Vector"])
tree.links.new(mapping.outputs["Vector"], tex.inputs["Vector"])
tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])

mat, tree, bsdf, tex = textured("TexGenerated", 16)
coord = tree.nodes.new("ShaderNodeTexCoord")
tree.links.new(coord.outputs["Generated"], tex.inputs["Vector"])
tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])

mat, tree, bsdf, tex = textured("TexAlpha", 18)
tint = tree.nodes.new("ShaderNodeMix")
tint.data_type, tint.blend_type = "RGBA", "MULTIPLY"
tint.inputs["Factor"].default_value = 1.0
tint.inputs["B"].default_value = (0.9, 0.55, 0.25, 1.0)
tree.links.new(tex.outputs["Alpha"], tint.inputs["A"])
tree.links.new(tint.outputs["Result"], bsdf.inputs["Base Color"])

mat, tree, bsdf, tex = textured("TexClamped", 20, pale)  # clamped to 0.795 .. 0.905 about the 0.9 placeholder
lo, hi = tree.nodes.new("ShaderNodeMix"), tree.nodes.new("ShaderNodeMix")
for node, blend, level in ((lo, "LIGHTEN", 0.795), (hi, "DARKEN", 0.905)):
    node.data_type, node.blend_type = "RGBA", blend
    node.inputs["Factor"].default_value = 1.0
    node.inputs["B"].default_value = (level, level, level, 1.0)
tree.links.new(tex.outputs["Color"], lo.inputs["A"])
tree.links.new(lo.outputs["Result"], hi.inputs["A"])
tree.links.new(hi.outputs["Result"], bsdf.inputs["Base Color"])

mat, tree, bsdf, tex = textured("TexCoated", 22)
bsdf.inputs["Coat Weight"].default_value = 1.0
bsdf.inputs["Coat Tint"].default_value = (0, 0, 0, 1)
tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])

mat, tree, bsdf, tex = textured("TexZeroSteps", 24)
mr = tree.nodes.new("ShaderNodeMapRange")
mr.interpolation_type = "STEPPED"
mr.inputs["Value"].default_value = 1.0
mr.inputs["Steps"].default_value = 0.0
mix = tree.nodes.new("ShaderNodeMix")
mix.data_type = "RGBA"
tree.links.new(mr.outputs["Result"], mix.inputs["Factor"])
tree.links.new(tex.outputs["Color"], mix.inputs["B"])
tree.links.new(mix.outputs["Result"], bsdf.inputs["Base Color"])

mat, tree, bsdf, tex = textured("TexGrey", 26)  # painted colours through a grey conversion
bw = tree.nodes.new("ShaderNodeRGBToBW")
tree.links.new(tex.outputs["Color"], bw.inputs["Color"])
tree.links.new(bw.outputs["Val"], bsdf.inputs["Base Color"])

for mat in bpy.data.materials:  # those on no object are saved too
    mat.use_fake_user = True
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[-1])
'''

P = "BSDF_PRINCIPLED"
TEAL = "#2A6F77"


def colour(material: str, **extra) -> tuple[str, dict]:
    return "surface_shader", {"material": material, "shader": P, "base_color": TEAL, **extra}


def texture(obj: str, **extra) -> tuple[str, dict]:
    return "texture_influence", {"object": obj, "input": "Base Color", "uv_map": "UVMap", **extra}


# name -> (method, params, expected score)
CASES = {
    "emission_plain": ("surface_shader", {"material": "Plain", "shader": P, "max_emission": 0.01}, 1.0),
    "emission_negative": ("surface_shader", {"material": "NegativeGlow", "shader": P, "max_emission": 0.01}, 0.5),
    "image_closest": (*colour("PairClosest"), 1.0),
    "image_linear": (*colour("PairLinear"), 0.5),
    "alpha_solid": (*colour("SwatchSolid"), 1.0),
    "alpha_clear": (*colour("SwatchClear"), 0.5),
    "alpha_half_unused": (*colour("HalfUnused"), 0.5),
    "alpha_half_used": (*colour("HalfUsed", min_alpha=0.99), 1.0),
    "alpha_half_dead_end": (*colour("HalfDeadEnd"), 0.5),
    "steps_four": (*colour("StepsFour"), 1.0),
    "steps_zero": (*colour("StepsZero"), 0.5),
    "texspace_auto": ("surface_shader", {"object": "AutoSpace", "shader": P, "base_color": TEAL}, 1.0),
    "texspace_shrunk": ("surface_shader", {"object": "ShrunkSpace", "shader": P, "base_color": TEAL}, 0.5),
    "coat_white": (*colour("CoatWhite"), 1.0),
    "coat_black": (*colour("CoatBlack"), 0.0),  # its colour, and a coat that is not clear (red team 24)
    "opaque_plain": ("surface_shader", {"material": "Plain", "shader": P, "min_alpha": 0.99}, 1.0),
    "opaque_glass": ("surface_shader", {"material": "Glass", "shader": P, "min_alpha": 0.99}, 0.5),
    "glass_still_on_faces": ("material_on_faces", {"object": "GlassBox", "material": "Glass"}, 1.0),
    "texture_direct": (*texture("TexDirect"), 1.0),
    "texture_direct_no_uv_named": ("texture_influence", {"object": "TexDirect"}, 1.0),
    "texture_other_uv": (*texture("TexOtherUV"), 0.0),
    "texture_tiled": (*texture("TexTiled"), 0.0),
    "texture_generated": (*texture("TexGenerated"), 0.0),
    "texture_alpha": (*texture("TexAlpha"), 0.0),
    "texture_clamped": (*texture("TexClamped"), 0.0),
    "texture_coated": (*texture("TexCoated"), 0.0),
    "texture_zero_steps": (*texture("TexZeroSteps"), 0.0),
    "texture_grey": (*texture("TexGrey"), 0.0),
}


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam2-surface")
    script, blend = tmp / "scene.py", tmp / "scene.blend"
    script.write_text(SCENE)
    run_bpy(str(script), str(blend))
    write_rule_task(tmp, {name: (m, p) for name, (m, p, _) in CASES.items()}, "redteam2-surface")
    out = probe_local(blend, tmp / "task.json", tmp / "rubric.json", tmp / "report.json")
    return {c["id"]: c for c in out["criteria"]}


@pytest.mark.parametrize("name", list(CASES))
def test_case_scores(report, name):
    method, params, want = CASES[name]
    entry = report[name]
    assert entry["score"] == pytest.approx(want, abs=1e-6), f"{method} {params}: {entry}"
    assert entry["passed"] is (want == 1.0)


def test_the_measures_say_why(report):
    glow = report["emission_negative"]["measured"]
    assert glow["emission"] == pytest.approx(4.0)  # |-4 x -1|, the brightest channel
    assert report["image_linear"]["evidence"]["failed"] == ["base_color"]
    assert report["alpha_clear"]["measured"]["base_color_hex"] == "#000000"
    assert report["steps_zero"]["measured"]["base_color_hex"] == "#e70000"  # red, To Min
    assert report["texspace_shrunk"]["measured"]["GeneratedZ"]["base_color_share"] < 0.5
    assert report["coat_black"]["measured"]["base_color_hex"] == "#000000"
    assert report["opaque_glass"]["measured"]["alpha"] == pytest.approx(0.0)
    rows = {name: report[name]["evidence"]["nodes"][0] for name in
            ("texture_direct", "texture_other_uv", "texture_tiled", "texture_generated", "texture_clamped")}
    assert rows["texture_direct"]["at_uv_map"] == pytest.approx(1.0)
    assert rows["texture_direct"]["influence"] == pytest.approx(1.0, abs=1e-3)
    for name in ("texture_other_uv", "texture_tiled", "texture_generated"):
        assert rows[name]["at_uv_map"] < 0.5 and rows[name]["influence"] > 0.5, rows[name]  # shows, elsewhere
    assert rows["texture_clamped"]["influence"] < 0.2  # the small step passes, the wide swing does not
    assert report["texture_alpha"]["measured"] == 0.0  # the colour never reaches Base Color
    assert report["texture_grey"]["measured"] == pytest.approx(1 / 3, abs=1e-3)  # luminance: one third per channel


# --- the operators (verifiers/mutations.py, "red team 2: surface") ------------------------------

MUTATION_SCENE = '''
import sys, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.render.engine = "BLENDER_EEVEE"


def cube(name, mat, x):
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(x, 0, 0.5))
    obj = bpy.context.active_object
    obj.name = name
    obj.data.materials.append(mat)


paint = bpy.data.materials.new("Paint")
paint.use_nodes = True
paint.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.0232, 0.159, 0.184, 1.0)
cube("Part", paint, 0.0)
wood = bpy.data.materials.new("Wood")
wood.use_nodes = True
grid = bpy.data.images.new("Grid", 8, 8)
grid.pixels[:] = [c for y in range(8) for x in range(8) for c in ((x + 0.5) / 8, (y + 0.5) / 8, 0.5, 1.0)]
grid.pack()
tex = wood.node_tree.nodes.new("ShaderNodeTexImage")
tex.image = grid
wood.node_tree.links.new(tex.outputs["Color"], wood.node_tree.nodes["Principled BSDF"].inputs["Base Color"])
cube("Crate", wood, 3.0)
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[-1])
'''

# operator -> the criteria that must see it
SURFACE_OPERATORS = {
    "negative_emission": {"colour"}, "transmission_glass": {"colour"}, "coat_tint_black": {"colour", "tex"},
    "image_alpha_zero": {"colour"}, "texture_other_uv": {"tex"}, "texture_tiled": {"tex"},
}
WATCHERS = {
    "colour": ("surface_shader", {"material": "Paint", "shader": P, "base_color": TEAL, "max_emission": 0.01,
                                  "min_alpha": 0.99}),
    "tex": ("texture_influence", {"object": "Crate", "image": "Grid", "uv_map": "UVMap"}),
    "overlap": ("uv_overlap", {"object": "Crate", "uv_map": "UVMap"}),
}


@pytest.fixture(scope="module")
def mutation_delivery(tmp_path_factory):
    work = tmp_path_factory.mktemp("redteam2-surface-mutations")
    script, blend = work / "scene.py", work / "delivery.blend"
    script.write_text(MUTATION_SCENE, encoding="utf-8")
    run_bpy(str(script), str(blend))
    return blend


def test_surface_operators_apply_and_are_killed(mutation_delivery, tmp_path):
    task, rubric = write_rule_task(tmp_path, WATCHERS, "redteam2-surface-mutations", start_mode="from_scratch",
                                   core=True)
    with local_probe() as probe:
        original = probe.probe(mutation_delivery, task, rubric, tmp_path / "before.json")
        rows = probe.mutate(mutation_delivery, task, rubric, operators=list(SURFACE_OPERATORS))
    assert all(c["passed"] for c in original["criteria"]), [c for c in original["criteria"] if not c["passed"]]
    for row in rows:
        assert row["applicable"] and row["error"] is None, row
        failed = {c["id"] for c in row["criteria"] if not c["passed"]}
        assert failed == SURFACE_OPERATORS[row["operator"]], (row["operator"], failed)


def test_surface_operators_are_refused_where_nothing_grades_them(mutation_delivery, tmp_path):
    """A rubric that grades only the Crate's UV overlap: no colour, emission, opacity or texture
    is graded, and without the overlap criterion the texture operators do not apply either."""
    task, rubric = write_rule_task(tmp_path, {"overlap": WATCHERS["overlap"]}, "redteam2-refused",
                                   start_mode="from_scratch", core=True)
    with local_probe() as probe:
        rows = {r["operator"]: r for r in probe.mutate(mutation_delivery, task, rubric,
                                                        operators=list(SURFACE_OPERATORS))}
    assert "emission is graded" in rows["negative_emission"]["why"]
    assert "opacity is graded" in rows["transmission_glass"]["why"]
    assert "colour is graded" in rows["coat_tint_black"]["why"]
    assert "base colour is graded" in rows["image_alpha_zero"]["why"]
    assert rows["texture_other_uv"]["applicable"] and rows["texture_tiled"]["applicable"]  # an image, uv_overlap
    task, rubric = write_rule_task(tmp_path / "none", {"colour": WATCHERS["colour"]}, "redteam2-refused-uv",
                                   start_mode="from_scratch", core=True)
    with local_probe() as probe:
        rows = {r["operator"]: r for r in probe.mutate(mutation_delivery, task, rubric,
                                                        operators=["texture_other_uv", "texture_tiled"])}
    assert all("share texture space" in r["why"] for r in rows.values())
