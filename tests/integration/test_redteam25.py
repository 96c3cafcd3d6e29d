"""Red team 25 (issue 33), in real Blender: data from another file, a texture discarded on a
patch, a collection that locks what it holds, a view that draws parts in its background's
colour, a driver reading session state, and a Bump node's normal.

* crate-texture passed with its image linked from a file the customer does not have (Blender's
  placeholder grid read as the painted image) and with the texture discarded on an 8 cm square of
  the lid (0.5 % of the area, under the 2 % the texture check allowed): any data linked from a
  library, packed or not, or overriding it refuses the delivery (``HoldsAnotherFilesData``), and
  ``texture_influence`` holds on every sample.
* asset-hygiene passed with its props linked read-only from a packed library, as library
  overrides hiding the uncleaned props in a second scene, moved into a collection with Selectable
  off (the snapshot's ``viewport`` key holds the view layers where an object can be selected),
  and with every 3D view lit Flat in one colour equal to its background (``opened_view_hides``).
* robot-carry passed with the box driven by ``Image.has_data`` (false in a headless render, true
  once a 3D view draws the image): a driver reading a read-only property is refused
  (``ShowsWhatItCannotMeasure``), the frame as rendered (``frame_current_final``) excepted.
* A Bump node's normal was named, not evaluated: with a Height that cannot vary over the surface
  it is its Normal input, and ``normals_follow_faces`` judges it.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import (
    BPY_SCENE_HELPERS, assert_operators_killed, assert_refused_as_expected, local_probe, probe_local, run_bpy,
    write_rule_task,
)
from verifiers import bpy_procs
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = BPY_SCENE_HELPERS + r'''

def prop(name, extra=None):
    """SM_Box on a stand, a sun: the kept scene."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 3
    box("SM_Box", (0.4, 0.4, 0.4), (0.0, 0.0, 0.2))
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    scene.collection.objects.link(sun)
    after = extra(scene) if extra is not None else None
    save(name)
    if after is not None:
        after()


def relink(scene, override=False):
    """SM_Box swapped for a copy of itself linked from a library file (made an override and
    the library packed with ``override``; else the library file deleted after the save)."""
    part = scene.objects["SM_Box"]
    path = out / f"lib-{override}.blend"
    bpy.data.libraries.write(str(path), {part}, fake_user=True)
    mesh = part.data
    bpy.data.objects.remove(part)
    bpy.data.meshes.remove(mesh)
    with bpy.data.libraries.load(str(path), link=True) as (src, dst):
        dst.objects = ["SM_Box"]
    scene.collection.objects.link(dst.objects[0])
    if override:
        dst.objects[0].override_create(remap_local_usages=True)
        for library in bpy.data.libraries:
            library.filepath = bpy.path.relpath(library.filepath)
        bpy.ops.file.pack_libraries()
        return None
    return lambda: path.unlink()


def linked(scene):
    return relink(scene)


def overridden(scene):
    return relink(scene, override=True)


def unselectable_collection(scene):
    locked = bpy.data.collections.new("Props")
    locked.hide_select = True
    scene.collection.children.link(locked)
    scene.collection.objects.unlink(scene.objects["SM_Box"])
    locked.objects.link(bpy.data.objects["SM_Box"])


def flat(colour, background):
    def extra(scene):
        for space in views():
            shading = space.shading
            shading.type, shading.light, shading.color_type = "SOLID", "FLAT", "SINGLE"
            shading.single_color = colour
            shading.background_type, shading.background_color = "VIEWPORT", background
            shading.show_object_outline = shading.show_cavity = shading.show_shadows = False
    return extra


def driven_by(id_type, ident, path):
    def extra(scene):
        source = ident() if callable(ident) else ident
        driver = scene.objects["SM_Box"].driver_add("location", 2).driver
        driver.type = "SCRIPTED"
        var = driver.variables.new()
        var.name, var.type = "v", "SINGLE_PROP"
        var.targets[0].id_type, var.targets[0].id = id_type, source
        var.targets[0].data_path = path
        driver.expression = "0.2 + 0 * v"
    return extra


def swatch():
    image = bpy.data.images.new("Swatch", 4, 4)
    image.use_fake_user = True  # a driver's target is no user: kept as an image empty would keep it
    return image


def textured(extra=None, name="textured"):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 3
    crate = box("Crate", (0.5, 0.5, 0.5), (0.0, 0.0, 0.25), uv=True)
    image = bpy.data.images.new("Paint", 64, 64)
    image.generated_type = "COLOR_GRID"
    mat = bpy.data.materials.new("Wood")
    mat.use_nodes = True
    tree = mat.node_tree
    tex = tree.nodes.new("ShaderNodeTexImage")
    tex.image = image
    uv = tree.nodes.new("ShaderNodeUVMap")
    uv.uv_map = "CrateUV"
    tree.links.new(uv.outputs["UV"], tex.inputs["Vector"])
    tree.links.new(tex.outputs["Color"], tree.nodes["Principled BSDF"].inputs["Base Color"])
    crate.data.materials.append(mat)
    if extra is not None:
        extra(tree, tex)
    save(name)


def lid_patch(tree, tex):
    """The texture mixed away to brown within 4 cm of the lid's centre (0.3 % of the area)."""
    coords = tree.nodes.new("ShaderNodeTexCoord")
    distance = tree.nodes.new("ShaderNodeVectorMath")
    distance.operation = "DISTANCE"
    distance.inputs[1].default_value = (0.0, 0.0, 0.25)
    tree.links.new(coords.outputs["Object"], distance.inputs[0])
    outside = tree.nodes.new("ShaderNodeMath")
    outside.operation = "GREATER_THAN"
    outside.inputs[1].default_value = 0.04
    tree.links.new(distance.outputs["Value"], outside.inputs[0])
    mix = tree.nodes.new("ShaderNodeMix")
    mix.data_type = "RGBA"
    mix.inputs["A"].default_value = (0.3, 0.18, 0.08, 1.0)
    tree.links.new(outside.outputs[0], mix.inputs["Factor"])
    tree.links.new(tex.outputs["Color"], mix.inputs["B"])
    tree.links.new(mix.outputs["Result"], tree.nodes["Principled BSDF"].inputs["Base Color"])


def bump(normal=None, height=None):
    def extra(tree, tex):
        node = tree.nodes.new("ShaderNodeBump")
        if normal == "inward":
            geometry = tree.nodes.new("ShaderNodeNewGeometry")
            turned = tree.nodes.new("ShaderNodeVectorMath")
            turned.operation = "SCALE"
            turned.inputs["Scale"].default_value = -1.0
            tree.links.new(geometry.outputs["Normal"], turned.inputs[0])
            tree.links.new(turned.outputs["Vector"], node.inputs["Normal"])
        if height == "value":
            value = tree.nodes.new("ShaderNodeValue")
            value.outputs[0].default_value = 0.3
            tree.links.new(value.outputs[0], node.inputs["Height"])
        elif height == "noise":
            noise = tree.nodes.new("ShaderNodeTexNoise")
            tree.links.new(noise.outputs["Fac"], node.inputs["Height"])
        tree.links.new(node.outputs["Normal"], tree.nodes["Principled BSDF"].inputs["Normal"])
    return extra


prop("prop")
prop("prop_linked_library_gone", linked)
prop("prop_packed_override", overridden)
prop("prop_unselectable_collection", unselectable_collection)
prop("prop_flat_as_background", flat((0.05, 0.05, 0.05), (0.05, 0.05, 0.05)))
prop("prop_flat_distinct", flat((0.8, 0.3, 0.1), (0.05, 0.05, 0.05)))
prop("prop_driven_by_has_data", driven_by("IMAGE", swatch, "has_data"))
prop("prop_driven_by_frame_final", driven_by("SCENE", lambda: bpy.context.scene, "frame_current_final"))
textured()
textured(lid_patch, "textured_lid_patch")
textured(bump("inward"), "textured_bump_inward")
textured(bump("inward", "value"), "textured_bump_inward_constant_height")
textured(bump(None, "value"), "textured_bump_constant_height")
textured(bump(None, "noise"), "textured_bump_noise")
'''

KEPT_CASES = {"KEPT": ("scene_unchanged", {"frame": 1})}
# the collections may change (as asset-hygiene's may): what they do to the object may not
MOVED_CASES = {"KEPT": ("scene_unchanged", {"frame": 1, "allow_changed": {
    "SM_Box": ["collections"], "render": ["collections", "layer_collections"]}})}
SIZE_CASES = {"SIZE": ("dimensions", {"object": "SM_Box", "expected": [0.4, 0.4, 0.4], "tolerance": 0.005})}
TEXTURE_CASES = {"TEX": ("texture_influence", {"material": "Wood", "image": "Paint", "uv_map": "CrateUV",
                                               "min_coverage": 0.1}),
                 "NORMALS": ("normals_follow_faces", {"objects": ["Crate"], "max_angle": 90, "max_share": 0.0})}
LINKED = "data from another .blend file"
# (task, delivery) -> {criterion: what its detail names}
EXPECTED = {
    ("kept", "prop"): {},
    ("kept", "prop_linked_library_gone"): {"KEPT": LINKED},
    ("kept", "prop_packed_override"): {"KEPT": LINKED},
    ("moved", "prop"): {},
    ("moved", "prop_unselectable_collection"): {"KEPT": "SM_Box (viewport)"},
    ("size", "prop"): {},
    ("size", "prop_linked_library_gone"): {"SIZE": LINKED},
    ("size", "prop_flat_as_background"): {"SIZE": "background's own colour"},
    ("size", "prop_flat_distinct"): {},
    ("size", "prop_driven_by_has_data"): {"SIZE": "Image.has_data, which Blender sets as it runs"},
    ("size", "prop_driven_by_frame_final"): {},
    ("texture", "textured"): {},
    ("texture", "textured_lid_patch"): {"TEX": "it shows, as itself, on 0.99"},
    ("texture", "textured_bump_inward"): {"NORMALS": "Crate"},
    ("texture", "textured_bump_inward_constant_height"): {"NORMALS": "Crate"},
    ("texture", "textured_bump_constant_height"): {},
    ("texture", "textured_bump_noise"): {},
}
NEW_OPERATORS = ("part_linked_from_packed_library", "texture_discarded_on_patch",
                 "kept_objects_in_unselectable_collection", "part_driven_by_session_state", "bump_turns_normal_inward")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam25")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    tasks = {"kept": write_rule_task(tmp / "kept", KEPT_CASES, "redteam25-kept"),
             "moved": write_rule_task(tmp / "moved", MOVED_CASES, "redteam25-moved"),
             "size": write_rule_task(tmp / "size", SIZE_CASES, "redteam25-size", start_mode="from_scratch"),
             "texture": write_rule_task(tmp / "texture", TEXTURE_CASES, "redteam25-texture", start_mode="from_scratch")}
    for task in ("kept", "moved"):
        run_bpy(bpy_procs.VERIFIERS / "scene_snapshot.py", "--blend", tmp / "prop.blend",
                "--out", tmp / task / "start_scene.json")
    return {"tmp": tmp, **tasks}


@pytest.mark.parametrize(("task", "delivery"), sorted(EXPECTED))
def test_linked_data_patches_locked_collections_flat_views_session_drivers_and_bumps_are_measured(
        scenes, task, delivery):
    task_path, rubric = scenes[task]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task_path, rubric,
                         scenes["tmp"] / f"report-{task}-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[(task, delivery)], delivery)


def test_a_varying_bump_height_is_named_not_failed(scenes):
    task_path, rubric = scenes["texture"]
    report = probe_local(scenes["tmp"] / "textured_bump_noise.blend", task_path, rubric,
                         scenes["tmp"] / "report-bump-noise.json")
    normals = next(c for c in report["criteria"] if c["id"] == "NORMALS")
    assert "Height that varies" in str(normals["measured"]["Crate"]["material_normal_not_evaluated"])


def test_the_new_operators_apply_and_are_killed(scenes):
    kills = {}
    for task, blend, operators, killed_by in (
            ("kept", "prop", ["part_linked_from_packed_library", "kept_objects_in_unselectable_collection",
                              "part_driven_by_session_state"], {"KEPT"}),
            ("texture", "textured", ["texture_discarded_on_patch"], {"TEX"}),
            ("texture", "textured", ["bump_turns_normal_inward"], {"NORMALS"})):
        task_path, rubric = scenes[task]
        with local_probe() as probe:
            rows = probe.mutate(scenes["tmp"] / f"{blend}.blend", task_path, rubric, None, operators=operators)
        assert_operators_killed(rows, {op: killed_by for op in operators})
        kills.update({row["operator"]: row for row in rows})
    assert sorted(kills) == sorted(NEW_OPERATORS)


def test_the_new_operators_are_listed():
    assert set(NEW_OPERATORS) <= set(OPERATOR_NAMES)
