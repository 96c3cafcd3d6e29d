"""Red team 32 (issue 33), in real Blender: a linked Coat Weight past 1, a part turned inside out
under Backface Culling, a picture cropped to a strip (the stilts and pins red team 32 found in
fence-array's ``box_filled`` are in test_redteam31.py, beside the measure).

* mug-material passed with a Coat Weight of 25 fed from a Value node: the grader clipped it to 1,
  EEVEE only floors it, and its coat hid the glaze and the gold under grey chrome.  The coat's
  measures take the weight as the renderer does (``_coat_weight``).
* table-model passed turned inside out, its material set to Backface Culling: EEVEE and the
  viewport drew the insides of the far walls.  ``material_on_faces`` and ``parts_shown`` do not
  count a face turned into its part under such a material (``_culled_inward``); a mirrored
  object, its faces drawn the right way round, is not turned.
* table-model passed with a 20000 x 360 picture: any view of the table a strip of leg stubs.
  ``render_overrides`` ``max_aspect``.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import (
    BPY_SCENE_HELPERS, assert_operators_killed, assert_refused_as_expected, local_probe, probe_local, run_bpy,
    write_rule_task,
)
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = BPY_SCENE_HELPERS + r'''
def part(name, culling=False, flip=None, mirror=False, coat=None, resolution=(1920, 1080), pixel_aspect=1.0):
    """"Part", a 0.4 m box with a teal Principled material "Wood" (faces flipped: "all" or "top";
    Coat Weight linked from a Value node of ``coat``), the render at ``resolution``."""
    scene = fresh()
    scene.render.resolution_x, scene.render.resolution_y = resolution
    scene.render.pixel_aspect_x = pixel_aspect
    obj = box("Part", (0.4, 0.4, 0.4), (0.0, 0.0, 0.2))
    mat = bpy.data.materials.new("Wood")
    mat.use_nodes = True
    bsdf = next(n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    bsdf.inputs["Base Color"].default_value = (0.023, 0.159, 0.184, 1.0)
    mat.use_backface_culling = culling
    if coat is not None:
        value = mat.node_tree.nodes.new("ShaderNodeValue")
        value.outputs[0].default_value = coat
        mat.node_tree.links.new(value.outputs[0], bsdf.inputs["Coat Weight"])
        bsdf.inputs["Coat IOR"].default_value, bsdf.inputs["Coat Roughness"].default_value = 1.5, 0.5
    obj.data.materials.append(mat)
    if flip == "all":
        obj.data.flip_normals()
    elif flip == "top":
        bm = bmesh.new()
        bm.from_mesh(obj.data)
        bmesh.ops.reverse_faces(bm, faces=[f for f in bm.faces if f.normal.z > 0.9])
        bm.to_mesh(obj.data)
        bm.free()
    if mirror:
        obj.scale.x = -1.0
    save(name)


part("box")
part("box_culled", culling=True)
part("box_inside_out", flip="all")  # no culling: every engine draws both sides
part("box_inside_out_culled", culling=True, flip="all")
part("box_top_flipped_culled", culling=True, flip="top")
part("box_mirrored_culled", culling=True, mirror=True)  # drawn the right way round
part("box_coat_linked_half", coat=0.5)
part("box_coat_linked_25", coat=25.0)
part("box_strip", resolution=(20000, 360))
part("box_portrait", resolution=(1080, 1920))
part("box_wide_pixels", pixel_aspect=4.0)
'''

CASES = {
    "shown": {"FACES": ("material_on_faces", {"object": "Part", "material": "Wood", "min_share": 0.999}),
              "SHOWN": ("parts_shown", {"object": "Part"})},
    "coat": {"SHADER": ("surface_shader", {"object": "Part", "shader": "BSDF_PRINCIPLED", "base_color": "#2A6F77",
                                           "max_delta_e": 3.0})},
    "picture": {"RENDER": ("render_overrides", {"max_aspect": 3})},
}
EXPECTED = {
    ("shown", "box"): {},
    ("shown", "box_culled"): {},
    ("shown", "box_inside_out"): {},
    ("shown", "box_inside_out_culled"): {"FACES": "faces turned inward under Backface Culling",
                                         "SHOWN": "culls back faces"},
    ("shown", "box_top_flipped_culled"): {"FACES": "not drawn on 0.167", "SHOWN": "culls back faces"},
    ("shown", "box_mirrored_culled"): {},
    ("coat", "box"): {},
    ("coat", "box_coat_linked_half"): {},
    ("coat", "box_coat_linked_25"): {"SHADER": "coat's spread reflection"},  # read as 1 before
    ("picture", "box"): {},
    ("picture", "box_portrait"): {},
    ("picture", "box_strip"): {"RENDER": "max_aspect is 55.555556"},
    ("picture", "box_wide_pixels"): {"RENDER": "max_aspect is 7.111111"},
}
NEW_OPERATORS = ("coat_weight_linked_past_one", "parts_inside_out_culled", "render_resolution_strip")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam32")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    tasks = {task: write_rule_task(tmp / task, cases, f"redteam32-{task}", start_mode="from_scratch")
             for task, cases in CASES.items()}
    return {"tmp": tmp, **tasks}


@pytest.mark.parametrize(("task", "delivery"), sorted(EXPECTED))
def test_a_coat_past_one_culled_inward_faces_and_a_strip_picture_are_measured(scenes, task, delivery):
    task_path, rubric = scenes[task]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task_path, rubric,
                         scenes["tmp"] / f"report-{task}-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[(task, delivery)], delivery)


def test_the_new_operators_apply_and_are_killed(scenes):
    for task, operator, killed_by in (("coat", "coat_weight_linked_past_one", {"SHADER"}),
                                      ("shown", "parts_inside_out_culled", {"FACES", "SHOWN"}),
                                      ("picture", "render_resolution_strip", {"RENDER"})):
        task_path, rubric = scenes[task]
        with local_probe() as probe:
            rows = probe.mutate(scenes["tmp"] / "box.blend", task_path, rubric, None, operators=[operator])
        assert_operators_killed(rows, {operator: killed_by})


def test_the_new_operators_are_listed():
    assert set(NEW_OPERATORS) <= set(OPERATOR_NAMES)
