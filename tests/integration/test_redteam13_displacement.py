"""Red team 13 (issue 33), in real Blender: a material's Displacement the render shades as a bump,
a true displacement that moves only the mesh's vertices, and a texture of alpha ~0.

* Under Bump Only (the default method), and under Displacement and Bump, both engines turn the
  output's Displacement into shading normals: crate-texture's ribs (a sine of U x 400, Scale
  0.015) darkened half the painted texture exactly as a Bump node into Normal would, which
  `surface_shader` refuses.  It judged the output's Displacement only under `max_displacement`;
  now a height that varies (relief above 1e-7 m) is judged as a linked Normal unless
  `allow_normal_map`, and one it cannot evaluate (a tangent-space Vector Displacement) is off.  A
  constant height shades nothing and passes; so does a fine true displacement (Displacement Only:
  the mesh moves, no bump).
* Under Displacement Only the renderer moves the vertices.  `render_displacement` evaluated the
  height at points inside the triangles and on edge midpoints, never at a vertex: a height of 1
  only at one corner lifted it 0.3 m unseen.  It now evaluates every triangle corner too, so the
  part is displaced in render; a sub-millimetre lift there still passes.
* (A lead.) A Straight image's colour reaches the render times its alpha, but `texture_influence`'s
  trial paint replaced the colour as read: a texture of alpha 0.001 (a black crate) counted as
  full influence.  The trial paint now paints the straight colour and multiplies it by the alpha.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import local_probe, probe_local, assert_operators_killed, assert_refused_as_expected, build_scenes
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = r'''
import math
import sys
from pathlib import Path

import bpy

out = Path(sys.argv[-1])


def start():
    """A 1 m cube on the floor, its material a Principled BSDF showing a colour grid at its UVs."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0.0, 0.0, 0.5))
    cube = bpy.context.active_object
    cube.name = "Cube"
    mat = bpy.data.materials.new("Wood")
    mat.use_nodes = True
    tree = mat.node_tree
    image = bpy.data.images.new("Grid", 64, 64)
    image.generated_type = "COLOR_GRID"
    tex = tree.nodes.new("ShaderNodeTexImage")
    tex.image = image
    tree.links.new(tex.outputs["Color"], tree.nodes["Principled BSDF"].inputs["Base Color"])
    cube.data.materials.append(mat)
    return mat, tree


def math_node(tree, operation, value=None):
    node = tree.nodes.new("ShaderNodeMath")
    node.operation = operation
    if value is not None:
        node.inputs[1].default_value = value
    return node


def ribs(tree):
    """sin(400 x U): ribs a few millimetres apart over the UV layout."""
    coord, sep = tree.nodes.new("ShaderNodeTexCoord"), tree.nodes.new("ShaderNodeSeparateXYZ")
    mul, sine = math_node(tree, "MULTIPLY", 400.0), math_node(tree, "SINE")
    tree.links.new(coord.outputs["UV"], sep.inputs["Vector"])
    tree.links.new(sep.outputs["X"], mul.inputs[0])
    tree.links.new(mul.outputs["Value"], sine.inputs[0])
    return sine.outputs["Value"]


def corner(tree):
    """1 within 1e-5 m of the cube's corner (0.5, 0.5, 0.5) in Object coordinates, else 0."""
    coord, dist = tree.nodes.new("ShaderNodeTexCoord"), tree.nodes.new("ShaderNodeVectorMath")
    dist.operation = "DISTANCE"
    dist.inputs[1].default_value = (0.5, 0.5, 0.5)
    near = math_node(tree, "LESS_THAN", 1e-5)
    tree.links.new(coord.outputs["Object"], dist.inputs[0])
    tree.links.new(dist.outputs["Value"], near.inputs[0])
    return near.outputs["Value"]


def displaced(name, method, height, scale, up=False):
    mat, tree = start()
    mat.displacement_method = method
    disp = tree.nodes.new("ShaderNodeDisplacement")
    disp.inputs["Midlevel"].default_value, disp.inputs["Scale"].default_value = 0.0, scale
    if isinstance(height, float):
        disp.inputs["Height"].default_value = height
    else:
        tree.links.new(height(tree), disp.inputs["Height"])
    if up:  # a constant normal: straight up, whatever the face
        disp.space = "OBJECT"
        along = tree.nodes.new("ShaderNodeCombineXYZ")
        along.inputs["Z"].default_value = 1.0
        tree.links.new(along.outputs["Vector"], disp.inputs["Normal"])
    tree.links.new(disp.outputs["Displacement"], tree.nodes["Material Output"].inputs["Displacement"])
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


start()
bpy.ops.wm.save_as_mainfile(filepath=str(out / "honest.blend"))
displaced("bump_flat", "BUMP", 0.7, 0.05)
displaced("bump_ribs", "BUMP", ribs, 0.015)
displaced("bump_and_displace_ribs", "BOTH", ribs, 0.0005)
displaced("displacement_only_fine", "DISPLACEMENT", ribs, 0.0005)
displaced("vertex_spike", "DISPLACEMENT", corner, 0.3, up=True)
displaced("vertex_spike_tiny", "DISPLACEMENT", corner, 0.0005, up=True)


def repainted(name, alpha):
    """The grid's texels repainted (a packed float image) with straight alpha ``alpha``."""
    start()
    grid = bpy.data.images["Grid"]
    image = bpy.data.images.new("Painted", 64, 64, alpha=True, float_buffer=True)
    pixels = list(grid.pixels)
    pixels[3::4] = [alpha] * (len(pixels) // 4)
    image.pixels[:] = pixels
    image.pack()
    bpy.data.materials["Wood"].node_tree.nodes["Image Texture"].image = image
    bpy.data.images.remove(grid)
    image.name = "Grid"
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


repainted("alpha_opaque", 1.0)
repainted("alpha_faint", 0.001)

mat, tree = start()  # a tangent-space Vector Displacement of the ribs, Bump Only
along = tree.nodes.new("ShaderNodeCombineXYZ")
tree.links.new(ribs(tree), along.inputs["Z"])
vector = tree.nodes.new("ShaderNodeVectorDisplacement")
vector.space = "TANGENT"
vector.inputs["Midlevel"].default_value, vector.inputs["Scale"].default_value = 0.0, 0.015
tree.links.new(along.outputs["Vector"], vector.inputs["Vector"])
tree.links.new(vector.outputs["Displacement"], tree.nodes["Material Output"].inputs["Displacement"])
bpy.ops.wm.save_as_mainfile(filepath=str(out / "bump_tangent.blend"))
'''

CASES = {
    "SHADER": ("surface_shader", {"material": "Wood", "shader": "BSDF_PRINCIPLED", "max_emission": 0.01,
                                  "min_alpha": 0.99, "max_transmission": 0.01}),
    "FACES": ("material_on_faces", {"object": "Cube", "material": "Wood"}),
    "TEXTURE": ("texture_influence", {"object": "Cube", "image": "Grid", "input": "Base Color",
                                      "min_influence": 0.5, "uv_map": "UVMap"}),
}
BUMP = "the output's Displacement is rendered as a bump (relief up to"
EXPECTED = {
    "honest": {},
    "bump_flat": {},  # a constant height tilts no normal
    "displacement_only_fine": {},  # the mesh moves under 1 mm, no bump
    "vertex_spike_tiny": {},
    "bump_ribs": {"SHADER": BUMP},
    "bump_and_displace_ribs": {"SHADER": BUMP},
    "bump_tangent": {"SHADER": "rendered as a bump and cannot be evaluated (displacement: tangent-space"},
    "vertex_spike": {"FACES": "displaced in render by their material: Cube: moved up to 0.3000 m",
                     "TEXTURE": "displaced in render"},
    "alpha_opaque": {},
    "alpha_faint": {"TEXTURE": "reaches 'Base Color' with influence 0.001 (min 0.5)"},  # straight alpha 0.001: the render reads the colour x 0.001
}
NEW_OPERATORS = ("displacement_bump_ribs", "displacement_bump_tangent", "displacement_at_one_vertex")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    return build_scenes(tmp_path_factory.mktemp("redteam13_displacement"), MAKE, CASES, "redteam13-displacement",
                        start_mode="from_scratch")


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_bumps_and_vertex_displacement_are_refused(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                                   scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)
    optics = report["criteria"][0]["measured"]["optics"]
    if delivery in ("bump_ribs", "bump_tangent"):
        assert "Material Output.Displacement (bump)" in optics["linked_normals"], optics
    if delivery == "bump_ribs":
        assert optics["bump_relief"] == pytest.approx(0.015, rel=0.05), optics


def test_the_new_operators_are_killed(scenes):
    with local_probe() as probe:
        rows = probe.mutate(scenes["tmp"] / "honest.blend", scenes["task"], scenes["rubric"],
                            operators=list(NEW_OPERATORS))
    assert_operators_killed(rows, {"displacement_bump_ribs": {"SHADER"}, "displacement_bump_tangent": {"SHADER"},
                                   "displacement_at_one_vertex": {"FACES", "TEXTURE"}})


def test_the_new_operators_are_listed():
    assert set(NEW_OPERATORS) <= set(OPERATOR_NAMES)
