"""Red team 21 (crate-texture), in real Blender: the texture must show at each sample, in each
colour channel, as itself, and as the render reads Base Color.

* A second Image Texture node reading the same image, subtracted, cancelled the first: the
  influence changed one node at a time.  ``texture_influence`` now changes the image data-block
  at every node reading it at once (``_n_image`` keys the override by the image; one row per
  image).
* A copy of the image (another data-block, the same pixels) subtracted cancelled it: with every
  read of the image held at one flat colour (``HELD_LEVELS``), Base Color must not vary over the
  part beyond ``HELD_TOL`` (``_held_steady``): nothing else spatial stands in for the texture.
* The lid kept flat brown, and the blue channel dropped on the faces in view, passed area means:
  every channel's slope must reach ``min_influence`` at each sample, on ``MIN_AREA_SHARE`` of the
  area and of what the camera sees.
* A greyscale 0.55 x (R + G + B) passed with slope 0.55 per channel: a change in one channel may
  move another at most ``CROSS_TALK`` times its own.
* The image - 5 (renders black) and + 5 (renders blown-out white) kept a slope of 1: Base Color is
  read floored at 0 and capped at ``BASE_CEILING``, as the render reads it.

Each measure has a passing and a failing scene.  Blender runs unsandboxed (LOCAL): everything it
runs here is this test's own code."""

from __future__ import annotations

import re

import pytest

from tests.probe_cases import assert_operators_killed, local_probe, probe_local, run_bpy, write_rule_task
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = r'''
import sys
from pathlib import Path

import bpy
import bmesh  # after bpy
from mathutils import Vector

out = Path(sys.argv[-1])
PLAIN = (0.45, 0.3, 0.15, 1.0)


def grid(name):
    image = bpy.data.images.new(name, 256, 256)
    image.generated_type = "COLOR_GRID"
    return image


def crate(name, chain=None):
    """A 1 m cube with UVs in front of a camera that sees its +X, -Y and +Z faces; Base Color
    is the Grid image through ``chain(tree, image node)`` (default: straight)."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bm = bmesh.new()
    bm.loops.layers.uv.new("UVMap")
    bmesh.ops.create_cube(bm, size=1.0, calc_uvs=True)
    mesh = bpy.data.meshes.new("Crate")
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new("Crate", mesh)
    obj.location = (0.0, 0.0, 0.5)
    bpy.context.scene.collection.objects.link(obj)
    cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
    bpy.context.scene.collection.objects.link(cam)
    cam.location = Vector((2.6, -3.0, 2.0))
    cam.rotation_euler = (Vector((0.0, 0.0, 0.5)) - cam.location).to_track_quat("-Z", "Y").to_euler()
    bpy.context.scene.camera = cam
    mat = bpy.data.materials.new("Wood")
    mat.use_nodes = True
    tree = mat.node_tree
    bsdf = tree.nodes["Principled BSDF"]
    tex = tree.nodes.new("ShaderNodeTexImage")
    tex.image = grid("Grid")
    colour = tex.outputs["Color"] if chain is None else chain(tree, tex)
    tree.links.new(colour, bsdf.inputs["Base Color"])
    obj.data.materials.append(mat)
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


def mix(tree, blend, fac, a, b, clamp=False):
    node = tree.nodes.new("ShaderNodeMix")
    node.data_type, node.blend_type, node.clamp_result = "RGBA", blend, clamp
    sockets = {s.identifier: s for s in node.inputs}
    for key, value in (("Factor_Float", fac), ("A_Color", a), ("B_Color", b)):
        if isinstance(value, bpy.types.NodeSocket):
            tree.links.new(value, sockets[key])
        else:
            sockets[key].default_value = value
    return next(s for s in node.outputs if s.identifier == "Result_Color")


def math(tree, op, a, b):
    node = tree.nodes.new("ShaderNodeMath")
    node.operation = op
    for i, v in enumerate((a, b)):
        if isinstance(v, bpy.types.NodeSocket):
            tree.links.new(v, node.inputs[i])
        else:
            node.inputs[i].default_value = v
    return node.outputs[0]


def second_read(tree, tex, image=None):
    other = tree.nodes.new("ShaderNodeTexImage")
    other.image = image or tex.image
    return other.outputs["Color"]


def cancelled(copy):
    """PLAIN + image - (the same image, or a copy of it): flat PLAIN in every render."""
    def chain(tree, tex):
        other = second_read(tree, tex, grid("Grid.copy") if copy else None)
        return mix(tree, "SUBTRACT", 1.0, mix(tree, "ADD", 1.0, PLAIN, tex.outputs["Color"]), other)
    return chain


def averaged_reads(tree, tex):  # two nodes reading the image, half each: the image
    return mix(tree, "MIX", 0.5, tex.outputs["Color"], second_read(tree, tex))


def times_flat_image(tree, tex):  # the image times a flat 0.8 grey second image: no spatial stand-in
    flat = bpy.data.images.new("Flat", 8, 8)
    flat.generated_type, flat.generated_color = "BLANK", (0.8, 0.8, 0.8, 1.0)
    return mix(tree, "MULTIPLY", 1.0, tex.outputs["Color"], second_read(tree, tex, flat))


def facing(tree, axis, sign):
    geo = tree.nodes.new("ShaderNodeNewGeometry")
    sep = tree.nodes.new("ShaderNodeSeparateXYZ")
    tree.links.new(geo.outputs["Normal"], sep.inputs[0])
    return math(tree, "GREATER_THAN" if sign > 0 else "LESS_THAN", sep.outputs[axis], 0.5 * sign)


def lid_discarded(tree, tex):  # factor 0 on the lid (+Z): flat PLAIN there
    return mix(tree, "MIX", math(tree, "SUBTRACT", 1.0, facing(tree, "Z", 1)), PLAIN, tex.outputs["Color"])


def channels(tree, tex, make):
    sep = tree.nodes.new("ShaderNodeSeparateColor")
    comb = tree.nodes.new("ShaderNodeCombineColor")
    tree.links.new(tex.outputs["Color"], sep.inputs[0])
    for i, socket in enumerate(make(sep.outputs)):
        tree.links.new(socket, comb.inputs[i])
    return comb.outputs[0]


def blue_dropped_in_view(tree, tex):  # blue held at 0.15 on the +X, -Y and +Z faces
    def make(rgb):
        seen = math(tree, "ADD", math(tree, "ADD", facing(tree, "X", 1), facing(tree, "Y", -1)), facing(tree, "Z", 1))
        seen.node.use_clamp = True
        node = tree.nodes.new("ShaderNodeMix")
        node.data_type = "FLOAT"
        sockets = {s.identifier: s for s in node.inputs}
        tree.links.new(seen, sockets["Factor_Float"])
        tree.links.new(rgb[2], sockets["A_Float"])
        sockets["B_Float"].default_value = 0.15
        return rgb[0], rgb[1], next(s for s in node.outputs if s.identifier == "Result_Float")
    return channels(tree, tex, make)


def greyscale(tree, tex):  # 0.55 x (R + G + B) in every channel
    def make(rgb):
        s = math(tree, "MULTIPLY", math(tree, "ADD", math(tree, "ADD", rgb[0], rgb[1]), rgb[2]), 0.55)
        return s, s, s
    return channels(tree, tex, make)


def slightly_mixed(tree, tex):  # red = 0.9 R + 0.1 G: the colours still show as themselves
    def make(rgb):
        return math(tree, "ADD", math(tree, "MULTIPLY", rgb[0], 0.9), math(tree, "MULTIPLY", rgb[1], 0.1)), rgb[1], rgb[2]
    return channels(tree, tex, make)


def offset(blend, amount):
    return lambda tree, tex: mix(tree, blend, 1.0, tex.outputs["Color"], (amount, amount, amount, 1.0))


def brightened(tree, tex):  # Hue/Saturation Value 1.6: brighter, the same contrast
    hsv = tree.nodes.new("ShaderNodeHueSaturation")
    hsv.inputs["Value"].default_value = 1.6
    tree.links.new(tex.outputs["Color"], hsv.inputs["Color"])
    return hsv.outputs["Color"]


crate("crate")
crate("crate_reads_averaged", averaged_reads)
crate("crate_second_read_cancels", cancelled(copy=False))
crate("crate_times_flat_image", times_flat_image)
crate("crate_copy_cancels", cancelled(copy=True))
crate("crate_lid_discarded", lid_discarded)
crate("crate_blue_dropped_in_view", blue_dropped_in_view)
crate("crate_slightly_mixed", slightly_mixed)
crate("crate_greyscale", greyscale)
crate("crate_brightened", brightened)
crate("crate_lifted", offset("ADD", 0.1))
crate("crate_below_zero", offset("SUBTRACT", 5.0))
crate("crate_above_one", offset("ADD", 5.0))
'''

CASES = {"TEX": ("texture_influence", {"object": "Crate", "image": "Grid", "input": "Base Color",
                                       "min_influence": 0.5})}
MEASURES = re.compile(r"influence (?P<influence>[\d.]+) .*it shows, as itself, on (?P<shown>[\d.]+) of the area "
                      r"and (?P<in_view>[\d.]+) of what the camera sees .*too weak on (?P<weak>[\d.]+), moving other "
                      r"channels on (?P<cross>[\d.]+), varying with the image held flat on (?P<held>[\d.]+)")
# delivery -> None (passes in full) or {measure: (lowest, highest)} it is refused with
EXPECTED: dict[str, dict[str, tuple[float, float]] | None] = {
    "crate": None,
    "crate_reads_averaged": None,
    "crate_second_read_cancels": {"influence": (0.0, 0.0), "weak": (1.0, 1.0)},
    "crate_times_flat_image": None,
    "crate_copy_cancels": {"held": (0.9, 1.0), "shown": (0.0, 0.1)},
    "crate_lid_discarded": {"weak": (0.1, 0.25), "in_view": (0.5, 0.8), "held": (0.1, 0.25)},
    "crate_blue_dropped_in_view": {"weak": (0.4, 0.6), "in_view": (0.0, 0.6)},
    "crate_slightly_mixed": None,
    "crate_greyscale": {"cross": (0.95, 1.0), "weak": (0.0, 0.0), "held": (0.0, 0.0)},
    "crate_brightened": None,
    "crate_lifted": None,
    "crate_below_zero": {"weak": (1.0, 1.0), "influence": (0.0, 0.0)},
    "crate_above_one": {"weak": (1.0, 1.0), "influence": (0.0, 0.0)},
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam21_texture")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    task, rubric = write_rule_task(tmp / "task", CASES, "redteam21-texture", start_mode="from_scratch")
    return {"tmp": tmp, "task": task, "rubric": rubric}


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_the_texture_shows_at_each_sample_in_each_channel_as_itself_as_rendered(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                         scenes["tmp"] / f"report-{delivery}.json")
    (crit,) = report["criteria"]
    assert crit.get("error") is None, crit.get("error")
    found = MEASURES.search(crit["detail"])
    assert found is not None, crit["detail"]
    measured = {k: float(v) for k, v in found.groupdict().items()}
    expected = EXPECTED[delivery]
    if expected is None:
        assert crit["passed"] and crit["score"] == 1, (delivery, crit["detail"])
        assert measured["shown"] == 1.0 and measured["in_view"] == 1.0, (delivery, crit["detail"])
        return
    assert not crit["passed"] and crit["score"] < 1, (delivery, crit["detail"])
    for name, (low, high) in expected.items():
        assert low <= measured[name] <= high, (delivery, name, measured[name], crit["detail"])


NEW_OPERATORS = ("texture_cancelled_by_second_read", "texture_greyscaled", "texture_pushed_past_white")


def test_the_new_operators_apply_and_are_killed(scenes):
    with local_probe() as probe:
        rows = probe.mutate(scenes["tmp"] / "crate.blend", scenes["task"], scenes["rubric"], None,
                            operators=list(NEW_OPERATORS))
    assert_operators_killed(rows, {op: {"TEX"} for op in NEW_OPERATORS})


def test_the_new_operators_are_listed():
    assert set(NEW_OPERATORS) <= set(OPERATOR_NAMES)
