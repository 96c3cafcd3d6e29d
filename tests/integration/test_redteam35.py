"""Red team 35 (issue 33), in real Blender: the image the painter paints into, and hidden mesh
attributes and Sculpt Mode on a kept prop.

* crate-texture passed with a decoy Image Texture node, connected to nothing, made the
  material's active node: Texture Paint painted into it, no render read it.  ``image_texture``
  ``paint_slot``: the active node, where it is an Image Texture, uses the graded image.
* asset-hygiene passed with a sculpt mask and face sets (attributes named with a leading ".")
  on every prop and the workbench saved in Sculpt Mode: the attribute digest skipped every "."
  name, and Sculpt was no paint mode.  Only Blender's editing state is skipped now
  (``EDITING_ATTRIBUTES``), and Sculpt Mode counts.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import BPY_SCENE_HELPERS, assert_refused_as_expected, probe_local, run_bpy, write_rule_task
from verifiers import bpy_procs

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = BPY_SCENE_HELPERS + r'''
def sculpt_mask(scene, obj):
    """red team 35: a mask over the whole prop, face sets, in "." attributes"""
    mask = obj.data.attributes.new(".sculpt_mask", "FLOAT", "POINT")
    mask.data.foreach_set("value", [1.0] * len(mask.data))
    obj.data.attributes.new(".sculpt_face_set", "INT", "FACE")


def sculpt_mode(scene, obj):
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="SCULPT")


def painted(name, decoy_active):
    """"Box" whose material feeds "Paint" into its Base Color, and a decoy image node beside it,
    connected to nothing; the active node is the decoy or the real one."""
    fresh()
    obj = box("Box", (0.4, 0.4, 0.4), (0.0, 0.0, 0.2), uv=True)
    mat = bpy.data.materials.new("Wood")
    mat.use_nodes = True
    tree = mat.node_tree
    bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
    real = tree.nodes.new("ShaderNodeTexImage")
    real.image = bpy.data.images.new("Paint", 64, 64)
    tree.links.new(real.outputs["Color"], bsdf.inputs["Base Color"])
    decoy = tree.nodes.new("ShaderNodeTexImage")
    decoy.image = bpy.data.images.new("Decoy", 64, 64)
    tree.nodes.active = decoy if decoy_active else real
    obj.data.materials.append(mat)
    save(name)


prop("prop")
prop("prop_sculpt_mask", sculpt_mask)
prop("prop_sculpt_mode", sculpt_mode)
painted("painted", False)
painted("painted_decoy_active", True)
'''

CASES = {
    "kept": {"KEPT": ("scene_unchanged", {"frame": 1})},
    "paint": {"IMAGE": ("image_texture", {"material": "Wood", "image": "Paint", "paint_slot": True})},
}
EXPECTED = {
    ("kept", "prop_sculpt_mask"): {"KEPT": "SM_Box (attributes)"},
    ("kept", "prop_sculpt_mode"): {"KEPT": "SM_Box (viewport)"},
    ("paint", "painted"): {},
    ("paint", "painted_decoy_active"): {"IMAGE": "off: paint_slot"},
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam35")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    tasks = {task: write_rule_task(tmp / task, cases, f"redteam35-{task}",
                                   start_mode=None if task == "kept" else "from_scratch")
             for task, cases in CASES.items()}
    run_bpy(bpy_procs.VERIFIERS / "scene_snapshot.py", "--blend", tmp / "prop.blend",
            "--out", tmp / "kept" / "start_scene.json")
    return {"tmp": tmp, **tasks}


@pytest.mark.parametrize(("task", "delivery"), sorted(EXPECTED))
def test_the_painters_image_hidden_attributes_and_sculpt_mode_are_measured(scenes, task, delivery):
    task_path, rubric = scenes[task]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task_path, rubric,
                         scenes["tmp"] / f"report-{task}-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[(task, delivery)], delivery)
