"""Red team 21 (issue 33), in real Blender: a part's shape as its world matrix gives it, what
an instance brings at any depth, two data-blocks of one name, a material's settings outside its
node graph, rotation channels the rotation mode ignores, and a frame rate to the frame.

* robot-carry passed with the box sheared into a rhombus by a parent inverse, every axis still
  1 long (``world_scale`` now holds the cosines between the axes), and with a box copy drawn
  through an empty that instances an empty (``_instanced_types`` follows every depth).
* render-setup passed with a camera, a material and an object linked from a packed library
  under the supplied ones' names (``NamesAmbiguous``: every criterion 0).
* asset-hygiene and crate-texture passed with their materials' viewport display edited (the
  object's ``material_settings``), asset-hygiene with Euler angles left under a Quaternion mode
  (``transforms_applied`` reads every stored rotation channel), render-setup with 23.99 fps.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import (
    assert_operators_killed, assert_refused_as_expected, local_probe, probe_local, run_bpy, write_rule_task,
)
from verifiers import bpy_procs
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = r'''
import math
import sys
from pathlib import Path

import bpy
import bmesh  # after bpy
from mathutils import Matrix

out = Path(sys.argv[-1])


def box(name, size, location):
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0)
    bmesh.ops.scale(bm, vec=size, verts=bm.verts)
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new(name, mesh)
    obj.location = location
    bpy.context.scene.collection.objects.link(obj)
    return obj


def save(name):
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


def kept(name, extra=None):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 3
    scene.render.fps, scene.render.fps_base = 24, 1.0
    obj = box("SM_Box", (0.5, 0.5, 0.5), (0.0, 0.0, 0.25))
    paint = bpy.data.materials.new("Paint")
    paint.diffuse_color = (0.2, 0.4, 0.8, 1.0)
    obj.data.materials.append(paint)
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    sun.data.energy = 3.0
    scene.collection.objects.link(sun)
    if extra is not None:
        extra(obj, sun)
    save(name)


def moved_and_turned(obj, sun):
    obj.location = (1.0, 0.5, 0.25)
    obj.rotation_euler = (0.3, 0.2, 1.1)


def sheared(obj, sun):
    """Parented to the sun through an inverse that tilts Y 40 degrees towards X, each axis 1 long."""
    a = math.radians(40.0)
    shear = Matrix(((1, math.cos(a), 0, 0), (0, math.sin(a), 0, 0), (0, 0, 1, 0), (0, 0, 0, 1)))
    obj.parent = sun
    obj.matrix_parent_inverse = sun.matrix_world.inverted() @ obj.matrix_basis @ shear @ obj.matrix_basis.inverted()


def instancer(name, objects):
    coll = bpy.data.collections.new(name + ".Set")
    for o in objects:
        coll.objects.link(o)
    empty = bpy.data.objects.new(name, None)
    empty.instance_type, empty.instance_collection = "COLLECTION", coll
    return empty


def nested_copy(obj, sun):
    copy = obj.copy()
    copy.data = obj.data.copy()
    copy.name = "Copy"
    copy.location.x += 2.0
    helper = instancer("Rig.Helper", [instancer("Rig.Inner", [copy])])
    bpy.context.scene.collection.objects.link(helper)


def nested_empty(obj, sun):
    helper = instancer("Rig.Helper", [instancer("Rig.Inner", [bpy.data.objects.new("Rig.Tip", None)])])
    bpy.context.scene.collection.objects.link(helper)


def viewport_colour(obj, sun):
    obj.data.materials[0].diffuse_color = (1.0, 0.0, 1.0, 0.0)


def namesake_material(obj, sun):
    paint = obj.data.materials[0]
    paint.name = "Paint.kept"  # the library's copy is written as "Paint"
    other = bpy.data.materials.new("Paint")
    other.diffuse_color = (1.0, 0.0, 0.0, 1.0)
    path = out / "lookdev.blend"
    bpy.data.libraries.write(str(path), {other}, fake_user=True)
    bpy.data.materials.remove(other)
    paint.name = "Paint"
    with bpy.data.libraries.load(str(path), link=True) as (src, dst):
        dst.materials = list(src.materials)
    bpy.context.scene["lookdev"] = dst.materials[0]


def quaternion_over_euler(obj, sun):
    obj.rotation_mode = "QUATERNION"
    obj.rotation_quaternion = (1.0, 0.0, 0.0, 0.0)
    obj.rotation_euler = (math.pi / 2, 0.0, 0.0)


def rate(fps, base):
    def set_rate(obj, sun):
        bpy.context.scene.render.fps, bpy.context.scene.render.fps_base = fps, base
    return set_rate


def overridden_link(obj, sun):
    """A prop linked from a library and made a library override: the override keeps the linked
    object's name, one object as Blender draws it (not two of one name) -- refused since red
    team 25 as data from another file."""
    mesh = bpy.data.meshes.new("Stool")
    stool = bpy.data.objects.new("Stool", mesh)
    bpy.data.libraries.write(str(out / "props.blend"), {stool}, fake_user=True)
    bpy.data.objects.remove(stool)
    bpy.data.meshes.remove(mesh)
    with bpy.data.libraries.load(str(out / "props.blend"), link=True) as (src, dst):
        dst.objects = ["Stool"]
    bpy.context.scene.collection.objects.link(dst.objects[0])
    dst.objects[0].override_create(remap_local_usages=True)


kept("prop")
kept("rate_overridden_link", overridden_link)
kept("prop_moved_turned", moved_and_turned)
kept("prop_sheared", sheared)
kept("prop_nested_copy", nested_copy)
kept("prop_nested_empty", nested_empty)
kept("prop_viewport_colour", viewport_colour)
kept("prop_namesake_material", namesake_material)
kept("prop_quaternion_over_euler", quaternion_over_euler)
kept("rate_48_over_2", rate(48, 2.0))
kept("rate_custom", rate(24, 1.0004))
'''

KEPT_CASES = {"KEPT": ("scene_unchanged", {"frame": 1, "allow_changed": {"SM_Box": ["matrix_world", "parent"]},
                                           "allow_new": {"types": ["EMPTY"]}}),
              "APPLIED": ("transforms_applied", {"objects": ["SM_Box"], "scale": True, "rotation": False})}
ROTATION_CASES = {"ROTATION": ("transforms_applied", {"objects": ["SM_Box"], "scale": True, "rotation": True})}
RATE_CASES = {"RATE": ("fps", {"expected": 24})}
AMBIGUOUS = "two data-blocks share a name"
# (task, delivery) -> {criterion: what its detail names}
EXPECTED = {
    ("kept", "prop"): {},
    ("kept", "prop_moved_turned"): {},
    ("kept", "prop_nested_empty"): {},
    ("kept", "prop_sheared"): {"KEPT": "SM_Box (world_scale"},
    ("kept", "prop_nested_copy"): {"KEPT": "new Rig.Helper"},
    ("kept", "prop_viewport_colour"): {"KEPT": "SM_Box (material_settings"},
    ("kept", "prop_namesake_material"): {"KEPT": AMBIGUOUS, "APPLIED": AMBIGUOUS},
    ("rotation", "prop"): {},
    ("rotation", "prop_quaternion_over_euler"): {"ROTATION": "rotation_euler"},
    ("rate", "prop"): {},
    ("rate", "rate_48_over_2"): {},
    ("rate", "rate_custom"): {"RATE": "23.99"},
    # red team 25 revised this: an override's linked reference can be another object (the
    # uncleaned props, kept in a second scene under the props' names): data from another file
    ("rate", "rate_overridden_link"): {"RATE": "data from another .blend file"},
}
NEW_OPERATORS = ("kept_part_sheared", "namesake_linked_from_library", "copy_two_instances_deep",
                 "kept_materials_viewport_recoloured", "rotation_left_under_quaternion")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam21")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    tasks = {"kept": write_rule_task(tmp / "kept", KEPT_CASES, "redteam21-kept"),
             "rotation": write_rule_task(tmp / "rotation", ROTATION_CASES, "redteam21-rotation",
                                         start_mode="from_scratch"),
             "rate": write_rule_task(tmp / "rate", RATE_CASES, "redteam21-rate", start_mode="from_scratch")}
    run_bpy(bpy_procs.VERIFIERS / "scene_snapshot.py", "--blend", tmp / "prop.blend",
            "--out", tmp / "kept" / "start_scene.json")
    return {"tmp": tmp, **tasks}


@pytest.mark.parametrize(("task", "delivery"), sorted(EXPECTED))
def test_shear_deep_instances_namesakes_material_settings_rotation_channels_and_the_rate_are_measured(
        scenes, task, delivery):
    task_path, rubric = scenes[task]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task_path, rubric,
                         scenes["tmp"] / f"report-{task}-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[(task, delivery)], delivery)


def test_the_new_operators_apply_and_are_killed(scenes):
    kills = {}
    for task, operators, killed_by in (
            ("kept", ["kept_part_sheared", "copy_two_instances_deep", "kept_materials_viewport_recoloured"],
             {"KEPT"}),
            ("kept", ["namesake_linked_from_library"], {"KEPT", "APPLIED"}),
            ("rotation", ["rotation_left_under_quaternion"], {"ROTATION"})):
        task_path, rubric = scenes[task]
        with local_probe() as probe:
            rows = probe.mutate(scenes["tmp"] / "prop.blend", task_path, rubric, None, operators=operators)
        assert_operators_killed(rows, {op: killed_by for op in operators})
        kills.update({row["operator"]: row for row in rows})
    assert sorted(kills) == sorted(NEW_OPERATORS)


def test_the_new_operators_are_listed():
    assert set(NEW_OPERATORS) <= set(OPERATOR_NAMES)
