"""Red team 30 (issue 33), in real Blender: where a camera's picture looks, and a true
displacement moving a surface inwards.

* product-lighting passed with the camera's body aimed at the speaker and its lens shifted 0.42 x
  0.40: the speaker in the picture's corner, its centre 10 degrees off. ``aimed_at`` takes a
  camera's aim through its picture's centre, shift included.
* mug-material's finding (0.99 mm of true displacement tearing flat-shaded facets) is open; on the
  way, a displacement inwards was read by its largest value (0 for -2 mm): ``render_displacement``
  takes its largest magnitude now.

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
from mathutils import Vector


def aimed(name, shift=0.0):
    scene = fresh()
    box("SM_Box", (0.4, 0.4, 0.4), (0.0, 0.0, 0.2))
    cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
    scene.collection.objects.link(cam)
    cam.location = (0.0, -4.0, 0.2)
    cam.rotation_euler = (Vector((0.0, 0.0, 0.2)) - cam.location).to_track_quat("-Z", "Y").to_euler()
    cam.data.lens, cam.data.shift_x = 85.0, shift
    scene.camera = cam
    save(name)


def displaced(name, height):
    """A 0.2 m smooth-shaded UV sphere with a constant true displacement of ``height`` (m)."""
    fresh()
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.1, location=(0.0, 0.0, 0.1))
    part = bpy.context.active_object
    part.name = "Part"
    bpy.ops.object.shade_smooth()
    mat = bpy.data.materials.new("Glaze")
    mat.use_nodes = True
    tree = mat.node_tree
    output = next(n for n in tree.nodes if n.type == "OUTPUT_MATERIAL")
    node = tree.nodes.new("ShaderNodeDisplacement")
    node.inputs["Height"].default_value, node.inputs["Midlevel"].default_value = height, 0.0
    node.inputs["Scale"].default_value = 1.0
    tree.links.new(node.outputs["Displacement"], output.inputs["Displacement"])
    mat.displacement_method = "DISPLACEMENT"
    part.data.materials.append(mat)
    save(name)


aimed("aimed")
aimed("aimed_shifted", 0.35)
displaced("sphere_out", 0.0009)
displaced("sphere_in", -0.002)
'''

CASES = {
    "aim": {"AIM": ("aimed_at", {"object": "Cam", "target": "SM_Box", "max_angle": 2})},
    "shape": {"SHAPE": ("surface_shader", {"object": "Part", "shader": "BSDF_PRINCIPLED", "max_displacement": 0.001})},
}
EXPECTED = {
    ("aim", "aimed"): {},
    ("aim", "aimed_shifted"): {"AIM": "Cam by"},
    ("shape", "sphere_out"): {},  # the surface moves 0.9 mm out, within the 1 mm
    ("shape", "sphere_in"): {"SHAPE": "moved up to 0.0020 m"},  # 2 mm in: read as 0 before
}
NEW_OPERATORS = ("camera_lens_shifted_off_aim",)


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam30")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    tasks = {task: write_rule_task(tmp / task, cases, f"redteam30-{task}", start_mode="from_scratch")
             for task, cases in CASES.items()}
    return {"tmp": tmp, **tasks}


@pytest.mark.parametrize(("task", "delivery"), sorted(EXPECTED))
def test_a_shifted_picture_and_an_inward_displacement_are_measured(scenes, task, delivery):
    task_path, rubric = scenes[task]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task_path, rubric,
                         scenes["tmp"] / f"report-{task}-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[(task, delivery)], delivery)


def test_the_new_operators_apply_and_are_killed(scenes):
    for task, blend, operator, killed_by in (("aim", "aimed", "camera_lens_shifted_off_aim", {"AIM"}),):
        task_path, rubric = scenes[task]
        with local_probe() as probe:
            rows = probe.mutate(scenes["tmp"] / f"{blend}.blend", task_path, rubric, None, operators=[operator])
        assert_operators_killed(rows, {operator: killed_by})


def test_the_new_operators_are_listed():
    assert set(NEW_OPERATORS) <= set(OPERATOR_NAMES)
