"""Red team 15 (issue 33), in real Blender: what a render bakes and sums.

* crate-texture passed at 1.000 with its placeholder made one flat colour and sent to Base
  Color through per-channel Color Ramps that are the wood brown everywhere but identity spikes
  1.4e-3 wide at the four levels ``texture_influence`` read (0.1, 0.9, the texel, the texel +
  0.1).  ``ColorRamp.evaluate`` is exact and saw the spikes; a renderer bakes a ramp into a
  256-entry table that misses them, and renders the crate plain brown.  Now the grader reads a
  ramp as the render's table (``probes_surface._n_ramp``), and the influence is also a slope at
  a level of its own per sample (``SWEEP_*``): a chain that shows the painted colour only at a
  few levels -- windows wide enough for the table too -- scores the share of levels it shows.
* render-setup passed at 1.000 with Cycles' Clamp Direct and Clamp Indirect at 0.005 (light
  paths the spec leaves to the solver): every light sample capped, the garden 23x darker.
  ``render_overrides`` ``clamps_keep_light`` refuses a light clamp of the engine (Cycles' or
  EEVEE's) below what the lights put on the parts (E / pi, a white face turned to them).

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import assert_operators_killed, assert_refused_as_expected, build_scenes, local_probe, probe_local
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = r'''
import sys
from pathlib import Path

import bpy

out = Path(sys.argv[-1])
LEVELS = (0.1, 0.9)


def scene():
    """A unwrapped cube textured through Base Color under a 3 W sun, rendered by Cycles."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.mesh.primitive_cube_add(size=1.0)
    cube = bpy.context.active_object
    cube.name = "Crate"
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.select_all(action="SELECT")
    bpy.ops.uv.smart_project()
    bpy.ops.object.mode_set(mode="OBJECT")
    image = bpy.data.images.new("Grid", 256, 256)
    image.generated_type = "COLOR_GRID"
    mat = bpy.data.materials.new("Wood")
    mat.use_nodes = True
    tree = mat.node_tree
    tex = tree.nodes.new("ShaderNodeTexImage")
    tex.image = image
    tree.links.new(tex.outputs["Color"], tree.nodes["Principled BSDF"].inputs["Base Color"])
    cube.data.materials.append(mat)
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    sun.data.energy = 3.0
    bpy.context.scene.collection.objects.link(sun)
    bpy.context.scene.render.engine = "CYCLES"
    return tree, tex, image


def through_ramps(tree, tex, make):
    """The image's channels each through a ramp ``make(ramp, channel)`` shapes, into Base Color."""
    split, join = tree.nodes.new("ShaderNodeSeparateColor"), tree.nodes.new("ShaderNodeCombineColor")
    tree.links.new(tex.outputs["Color"], split.inputs["Color"])
    for i in range(3):
        node = tree.nodes.new("ShaderNodeValToRGB")
        make(node.color_ramp, i)
        tree.links.new(split.outputs[i], node.inputs["Fac"])
        tree.links.new(node.outputs["Color"], join.inputs[i])
    tree.links.new(join.outputs["Color"], tree.nodes["Principled BSDF"].inputs["Base Color"])


def flat(image, level):
    image.generated_type = "BLANK"
    image.generated_color = (level, level, level, 1.0)


def grey(element, value):
    element.color = (value, value, value, 1.0)


def identity(ramp, _i):  # 0 -> black, 1 -> white: the colour as painted
    grey(ramp.elements[0], 0.0)
    grey(ramp.elements[1], 1.0)


def spikes(texel, half):
    """Brown 0.3 everywhere but identity windows ``half`` wide round the fixed levels and the texel."""
    def make(ramp, _i):
        grey(ramp.elements[0], 0.3)
        grey(ramp.elements[1], 0.3)
        for x in sorted({*LEVELS, texel, texel + 0.1}):
            for pos, value in ((x - half - 1e-4, 0.3), (x - half, x - half), (x + half, x + half),
                               (x + half + 1e-4, 0.3)):
                grey(ramp.elements.new(pos), value)
    return make


def save(name):
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


tree, tex, image = scene()
save("textured")
tree, tex, image = scene()
through_ramps(tree, tex, identity)
save("identity_ramps")
# the flat texel as the grader reads it: the blank image's float level, linear
tree, tex, image = scene()
flat(image, 0.3)
texel = image.pixels[0]
through_ramps(tree, tex, spikes(texel, 0.0007))  # narrower than the render's table
save("ramp_spikes")
tree, tex, image = scene()
flat(image, 0.3)
through_ramps(tree, tex, spikes(texel, 0.006))  # wider than a table step: only the sweep sees it
save("ramp_windows")

scene()
bpy.context.scene.cycles.sample_clamp_direct = bpy.context.scene.cycles.sample_clamp_indirect = 0.005
save("clamp_blackout")
scene()
bpy.context.scene.cycles.sample_clamp_direct = 1.0  # above 3 W/m2 / pi: cuts fireflies only
bpy.context.scene.cycles.sample_clamp_indirect = 5.0
save("clamp_fireflies")
scene()
bpy.context.scene.render.engine = "BLENDER_EEVEE"
bpy.context.scene.eevee.clamp_surface_direct = 0.005
save("eevee_clamp")
'''

CASES = {
    "TEX": ("texture_influence", {"object": "Crate", "image": "Grid", "input": "Base Color"}),
    "CLAMPS": ("render_overrides", {"clamps_keep_light": ["Crate"]}),
}
# delivery -> {criterion: what its detail names}
EXPECTED = {
    "textured": {},
    "identity_ramps": {},
    "clamp_fireflies": {},
    "ramp_spikes": {"TEX": "influence 0.0"},
    "ramp_windows": {"TEX": "influence 0.0"},
    "eevee_clamp": {"CLAMPS": "['clamp_surface_direct 0.005']"},
    "clamp_blackout": {"CLAMPS": "['sample_clamp_direct 0.005', 'sample_clamp_indirect 0.005']"},
}
NEW_OPERATORS = ("texture_level_windows", "clamp_light_away")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    return build_scenes(tmp_path_factory.mktemp("redteam15"), MAKE, CASES, "redteam15", "from_scratch")


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_what_a_render_bakes_and_sums_is_measured(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                         scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)


def test_the_new_operators_apply_and_are_killed(scenes):
    with local_probe() as probe:
        rows = probe.mutate(scenes["tmp"] / "textured.blend", scenes["task"], scenes["rubric"], None,
                            operators=list(NEW_OPERATORS))
    assert_operators_killed(rows, {"texture_level_windows": {"TEX"}, "clamp_light_away": {"CLAMPS"}})


def test_the_new_operators_are_listed():
    # chain_folded_at_end needs a keyed hinge chain: robot-carry's calibration applies it (stage 05
    # in test_task_production, make demo) and C17's pairs kill it
    assert {*NEW_OPERATORS, "chain_folded_at_end"} <= set(OPERATOR_NAMES)


# robot-carry passed at 1.000 with the held box dunked under the Floor mid-swing and with the arm
# folded through itself after the set-down: the floor was in no criterion and solids_apart
# measured links against the set only.  Its ``pairs`` now add the links no joint joins, its
# ``floor_z`` a floor's top no part may reach below (the floor itself is left out of the
# evidence renders: a criterion naming it would be a part the judge cannot see).
MAKE_ARM = r'''
import sys
from pathlib import Path

import bpy

out = Path(sys.argv[-1])


def block(name, location, size):
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=location)
    obj = bpy.context.active_object
    obj.name, obj.scale = name, size
    bpy.ops.object.transform_apply(location=False, rotation=False, scale=True)
    return obj


def arm():
    """A floor slab (top at z 0) and three links standing on it: Base, Upper overlapping the
    Base at their joint, Fore overlapping Upper at theirs; Base and Fore apart."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    block("Floor", (0, 0, -0.05), (4, 4, 0.1))
    block("Base", (0, 0, 0.25), (0.3, 0.3, 0.5))
    block("Upper", (0, 0, 0.7), (0.2, 0.2, 0.5))
    return block("Fore", (0, 0, 1.15), (0.15, 0.15, 0.5))


def save(name):
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


arm()
save("arm")
fore = arm()
fore.location.z = 0.3  # folded back down through the upper link into the base
save("folded")
fore = arm()
fore.location.z = -0.1  # the link's foot 35 cm under the floor's top
fore.location.x = 1.0
save("sunk")
'''
ARM_CASES = {"APART": ("solids_apart", {"objects": ["Base", "Upper", "Fore"], "others": ["Floor"],
                                        "pairs": [["Base", "Fore"]], "frame_start": 1, "frame_end": 1,
                                        "tolerance": 0.005}),
             # the floor as a height (robot-carry's C17): the link is paired with itself only (skipped)
             "BELOW": ("solids_apart", {"objects": ["Fore"], "others": ["Fore"], "floor_z": 0.0, "frame_start": 1,
                                        "frame_end": 1, "tolerance": 0.005})}
ARM_EXPECTED = {"arm": {}, "folded": {"APART": "Base runs 0.0750 m into Fore"},
                "sunk": {"APART": "Fore runs 0.0750 m into Floor", "BELOW": "Fore runs 0.3500 m into the floor"}}


@pytest.fixture(scope="module")
def arm_scenes(tmp_path_factory) -> dict:
    return build_scenes(tmp_path_factory.mktemp("redteam15-arm"), MAKE_ARM, ARM_CASES, "redteam15-arm",
                        "from_scratch")


@pytest.mark.parametrize("delivery", sorted(ARM_EXPECTED))
def test_links_no_joint_joins_and_the_floor_are_apart(arm_scenes, delivery):
    report = probe_local(arm_scenes["tmp"] / f"{delivery}.blend", arm_scenes["task"], arm_scenes["rubric"],
                         arm_scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, ARM_EXPECTED[delivery], delivery)
