"""The surface probes (verifiers/probes_surface.py) in real Blender: the material that reaches the
rendered surface, not a name in some slot, a viewport colour or a texture a Mix discards.  One
scene, one probe run, one criterion per case."""

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


def principled(name, **inputs):
    mat = bpy.data.materials.new(name)
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = RED
    for key, value in inputs.items():
        bsdf.inputs[key].default_value = value
    return mat, bsdf


def cube(name, *mats, x=0.0):
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(x, 0, 0.5))
    obj = bpy.context.active_object
    obj.name = name
    for mat in mats:
        obj.data.materials.append(mat)
    return obj


def image_node(mat, img):
    tex = mat.node_tree.nodes.new("ShaderNodeTexImage")
    tex.image = img
    return tex


paint, _ = principled("Paint")
grey, _ = principled("Grey", **{"Base Color": (0.5, 0.5, 0.5, 1.0)})
cube("Good", paint)
cube("Unused", grey, paint, x=2)  # Paint sits in slot 2; every face uses slot 1
rig = bpy.data.objects.new("Rig", None)  # no faces
scene.collection.objects.link(rig)

# an object-linked slot overrides the mesh's material
linked = cube("ObjLink", grey, x=4)
linked.material_slots[0].link = "OBJECT"
linked.material_slots[0].material = paint

# an Emission look-alike of the same colour
glow = bpy.data.materials.new("PaintGlow")
nodes, links = glow.node_tree.nodes, glow.node_tree.links
nodes.remove(nodes["Principled BSDF"])
emit = nodes.new("ShaderNodeEmission")
emit.inputs["Color"].default_value = RED
emit.inputs["Strength"].default_value = 1.0
links.new(emit.outputs[0], nodes["Material Output"].inputs["Surface"])
cube("Glow", glow, x=6)

# half Paint, half high transmission; an unused slot holds the Emission look-alike
glassy, _ = principled("Glassy", **{"Transmission Weight": 1.0})
ghost, _ = principled("Ghost", **{"Alpha": 0.1})
mixed = cube("Mixed", paint, glassy, glow, x=8)
for poly in mixed.data.polygons:
    poly.material_index = 0 if poly.index < 3 else 1

# Base Color from an RGB node, through a reroute
via_rgb, bsdf = principled("ViaRGB")
rgb = via_rgb.node_tree.nodes.new("ShaderNodeRGB")
rgb.outputs[0].default_value = (0.1, 0.3, 0.8, 1.0)
reroute = via_rgb.node_tree.nodes.new("NodeReroute")
via_rgb.node_tree.links.new(rgb.outputs[0], reroute.inputs[0])
via_rgb.node_tree.links.new(reroute.outputs[0], bsdf.inputs["Base Color"])

# Base Color from a procedural texture: not resolvable
noisy, bsdf = principled("Noisy")
noise = noisy.node_tree.nodes.new("ShaderNodeTexNoise")
noisy.node_tree.links.new(noise.outputs["Color"], bsdf.inputs["Base Color"])

# a generated 8 x 8 image, sRGB orange #ff8000, on Base Color directly
checker = bpy.data.images.new("Checker", 8, 8)
checker.pixels[:] = [1.0, 128 / 255, 0.0, 1.0] * 64
checker.pack()
tex_mat, bsdf = principled("Tex")
tex = image_node(tex_mat, checker)
tex_mat.node_tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
cube("Textured", tex_mat, x=10)

# the image into a MixRGB whose factor 1 takes only Color2 (red): the texture is discarded
tex_mixed, bsdf = principled("TexMixed")
tex = image_node(tex_mixed, checker)
mix = tex_mixed.node_tree.nodes.new("ShaderNodeMixRGB")
mix.inputs["Fac"].default_value = 1.0
mix.inputs["Color2"].default_value = RED
tex_mixed.node_tree.links.new(tex.outputs["Color"], mix.inputs["Color1"])
tex_mixed.node_tree.links.new(mix.outputs[0], bsdf.inputs["Base Color"])

# image -> Hue/Saturation -> Mix (factor 0.3, the image in A: 0.7) -> Base Color
tex_chain, bsdf = principled("TexChain")
tex = image_node(tex_chain, checker)
hue = tex_chain.node_tree.nodes.new("ShaderNodeHueSaturation")
mix = tex_chain.node_tree.nodes.new("ShaderNodeMix")
mix.data_type = "RGBA"
mix.inputs["Factor"].default_value = 0.3
tex_chain.node_tree.links.new(tex.outputs["Color"], hue.inputs["Color"])
tex_chain.node_tree.links.new(hue.outputs["Color"], mix.inputs["A"])
tex_chain.node_tree.links.new(mix.outputs["Result"], bsdf.inputs["Base Color"])
cube("Chained", grey, tex_chain, x=12)
for poly in bpy.data.objects["Chained"].data.polygons:
    poly.material_index = 1  # slot 1 (Grey) is on no face

# Mix Shader of Paint and a white emission of strength 2: emission 0.5 x 2 = 1
blend = bpy.data.materials.new("Blend")
nodes, links = blend.node_tree.nodes, blend.node_tree.links
mix_shader = nodes.new("ShaderNodeMixShader")
mix_shader.inputs[0].default_value = 0.5
emit = nodes.new("ShaderNodeEmission")
emit.inputs["Strength"].default_value = 2.0
links.new(nodes["Principled BSDF"].outputs[0], mix_shader.inputs[1])
links.new(emit.outputs[0], mix_shader.inputs[2])
links.new(mix_shader.outputs[0], nodes["Material Output"].inputs["Surface"])

# two outputs: the active ALL one shows a Principled BSDF, EEVEE renders its own (Emission)
decoy, bsdf = principled("Decoy")
nodes, links = decoy.node_tree.nodes, decoy.node_tree.links
eevee_out = nodes.new("ShaderNodeOutputMaterial")
eevee_out.target = "EEVEE"
emit = nodes.new("ShaderNodeEmission")
emit.inputs["Color"].default_value = RED
links.new(emit.outputs[0], eevee_out.inputs["Surface"])
nodes["Material Output"].is_active_output = True

for mat in bpy.data.materials:  # those on no object are saved too
    mat.use_fake_user = True
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[-1])
'''

RED = [0.8, 0.1, 0.1]
PRINCIPLED = "BSDF_PRINCIPLED"

# (method, params, expected score)
CASES = [
    # material_on_faces
    ("material_on_faces", {"object": "Good", "material": "Paint"}, 1.0),
    ("material_on_faces", {"objects": ["Good", "Unused"], "material": "Paint"}, 0.5),  # unused slot 2
    ("material_on_faces", {"objects": ["Good", "Rig"], "material": "Paint"}, 0.5),  # no faces
    ("material_on_faces", {"object": "ObjLink", "material": "Paint"}, 1.0),  # object-linked slot
    ("material_on_faces", {"object": "ObjLink", "material": "Grey"}, 0.0),  # only the mesh's slot
    ("material_on_faces", {"object": "Mixed", "material": "Paint", "min_share": 0.4}, 1.0),
    ("material_on_faces", {"object": "Mixed", "material": "Paint"}, 0.0),
    # surface_shader
    ("surface_shader", {"material": "Paint", "shader": PRINCIPLED, "base_color": RED, "max_emission": 0,
                        "min_alpha": 1, "max_transmission": 0}, 1.0),
    ("surface_shader", {"material": "PaintGlow", "shader": PRINCIPLED, "base_color": RED,
                        "max_emission": 0.1}, 1 / 3),  # the look-alike: colour right, shader and glow wrong
    ("surface_shader", {"object": "Glow", "shader": ["EMISSION", PRINCIPLED]}, 1.0),
    ("surface_shader", {"material": "ViaRGB", "shader": PRINCIPLED, "base_color": [0.1, 0.3, 0.8],
                        "max_delta_e": 1}, 1.0),
    ("surface_shader", {"material": "ViaRGB", "shader": PRINCIPLED, "base_color": RED}, 0.5),
    ("surface_shader", {"material": "Noisy", "shader": PRINCIPLED, "base_color": RED}, 0.5),
    ("surface_shader", {"object": "Textured", "shader": PRINCIPLED, "base_color": "#ff8000",
                        "max_delta_e": 0.5}, 1.0),  # mean pixel, sRGB linearised
    ("surface_shader", {"material": "TexMixed", "shader": PRINCIPLED, "base_color": RED, "max_delta_e": 0.5}, 1.0),
    ("surface_shader", {"material": "Glassy", "shader": PRINCIPLED, "max_transmission": 0.5}, 0.5),
    ("surface_shader", {"material": "Ghost", "shader": PRINCIPLED, "min_alpha": 0.5, "max_transmission": 0.5},
     2 / 3),
    ("surface_shader", {"object": "Mixed", "shader": PRINCIPLED, "max_transmission": 0.5}, 0.5),
    ("surface_shader", {"material": "Blend", "shader": [PRINCIPLED, "MIX_SHADER"], "max_emission": 0.5}, 0.5),
    ("surface_shader", {"material": "Blend", "shader": PRINCIPLED}, 0.0),
    ("surface_shader", {"material": "Decoy", "shader": PRINCIPLED, "base_color": RED}, 0.5),
    # texture_influence
    ("texture_influence", {"material": "Tex", "image": "Checker"}, 1.0),
    ("texture_influence", {"object": "Textured"}, 1.0),
    ("texture_influence", {"material": "TexMixed", "image": "Checker"}, 0.0),  # the Mix discards it
    ("texture_influence", {"object": "Chained", "image": "Checker"}, 1.0),  # 0.7 through Hue/Sat + Mix
    ("texture_influence", {"object": "Chained", "image": "Checker", "min_influence": 0.8}, 0.0),
    ("texture_influence", {"material": "Tex", "image": "Checker", "input": "Roughness"}, 0.0),
    ("texture_influence", {"material": "PaintGlow"}, 0.0),  # no Principled BSDF on the surface
]


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("surface")
    script, blend = tmp / "scene.py", tmp / "scene.blend"
    script.write_text(SCENE)
    run_bpy(str(script), str(blend))
    write_rule_task(tmp, {f"S{i:02d}": (m, p) for i, (m, p, _) in enumerate(CASES)}, "probes-surface")
    out = probe_local(blend, tmp / "task.json", tmp / "rubric.json", tmp / "report.json")
    return {c["id"]: c for c in out["criteria"]}


@pytest.mark.parametrize(("index", "case"), list(enumerate(CASES)), ids=[f"{m}-{i}" for i, (m, _, _) in
                                                                         enumerate(CASES)])
def test_case_scores(report, index, case):
    method, params, want = case
    entry = report[f"S{index:02d}"]
    assert entry["score"] == pytest.approx(want, abs=1e-6), f"{method} {params}: {entry}"
    assert entry["passed"] is (want == 1.0)


def test_measurements_explain_the_verdicts(report):
    shares = report["S02"]
    assert shares["measured"] == {"Good": 1.0, "Rig": 0.0}
    glow = report["S08"]
    assert glow["measured"]["shader"] == "EMISSION" and glow["measured"]["emission"] == pytest.approx(0.8)
    assert glow["evidence"]["failed"] == ["shader", "max_emission"]
    noisy = report["S12"]
    assert "procedural texture TEX_NOISE" in noisy["detail"]
    assert noisy["measured"]["base_color"] is None
    textured = report["S13"]["measured"]["Tex"]
    assert textured["base_color_hex"] == "#ff8000"
    mixed = report["S17"]
    assert sorted(mixed["measured"]) == ["Glassy", "Paint"]  # the unused PaintGlow slot is not judged
    blend = report["S18"]["measured"]
    assert blend["shader"] == "MIX_SHADER" and blend["emission"] == pytest.approx(1.0)
    assert report["S20"]["measured"]["shader"] == "EMISSION"  # the EEVEE output wins over ALL
    discarded = report["S23"]  # the Mix takes only Color2: the image is never sampled where it shows
    assert discarded["measured"] == 0.0 and "does not reach 'Base Color'" in discarded["detail"]
    assert discarded["evidence"]["nodes"] == []
    assert "no Principled BSDF shows" in report["S27"]["detail"]
    chained = report["S24"]  # Hue/Saturation (neutral) then a Mix with the image in A at factor 0.3
    assert chained["measured"] == pytest.approx(0.7, abs=1e-3)
    row = chained["evidence"]["nodes"][0]
    # 8 x 8 texels, the UV cross: 6 faces of 2 x 2 texels each
    assert row["image"] == "Checker" and row["coverage"] == pytest.approx(24 / 64)
