"""Red team 24 (issue 33), in real Blender: the texture space Generated coordinates span, shaders
that let the light through, and surface samples a delivery cannot place its details at.

* fence-array passed with its pickets' alpha "Generated X < 1.01" (Blender spans Generated over
  the one modelled picket's texture space, the grader spanned the whole Array: ``_texture_space``
  reads the data's texture space now), with a Ray Portal BSDF and a Hair BSDF on them (counted as
  opaque: a portal stops no light now, a hair shader on a surface is not modelled), and with an
  alpha image opaque only around the grader's fixed sample points (the pattern is shifted by the
  measured file's digest: ``probe_core.shift_samples``).
* table-model passed with its 3D views in Wireframe, Solid coloured by a see-through texture, and
  looking through a local camera whose clip range is 0.1-1 mm (``_view_drawing`` reads the
  shading type, colour source, render pass, viewport compositor and the camera a view looks
  through).
* mug-material passed with a black Coat Tint square and a glowing magenta one on the glaze (a
  surface_shader check now holds on every sample, ``SURFACE_MIN_SHARE``), and with its colour in
  the Coat Tint over a white Base Color (a coat must stay clear: ``max_coat_tint``).
* product-lighting passed with the key's power driven by the frame end or the output format (a
  driver may read only the frame and the frame rate of the scene, ``SCENE_PATHS_A_RIG_READS``)
  and with a camera clip range of 0.1 m to 1e9 m, which EEVEE renders unlit
  (``CLIP_RATIO_MAX``).

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import (
    assert_operators_killed, assert_refused_as_expected, local_probe, probe_local, run_bpy, write_rule_task,
)
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = r'''
import sys
from pathlib import Path

import bpy
import bmesh  # after bpy
import numpy as np
from mathutils import Matrix

out = Path(sys.argv[-1])
COUNT, PITCH = 5, 0.16


def slats(name, surface=None):
    """Five slats: one modelled 0.08 x 0.02 x 0.9 box, an Array modifier for the rest."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation((0.0, 0.0, 0.5)) @ Matrix.Diagonal((0.08, 0.02, 0.9, 1.0)))
    mesh = bpy.data.meshes.new("Slats")
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new("Slats", mesh)
    scene.collection.objects.link(obj)
    array = obj.modifiers.new("Array", "ARRAY")
    array.count, array.use_relative_offset, array.use_constant_offset = COUNT, False, True
    array.constant_offset_displace = (PITCH, 0.0, 0.0)
    mat = bpy.data.materials.new("Wood")
    mat.use_nodes = True
    mesh.materials.append(mat)
    if surface is not None:
        surface(mat.node_tree, obj)
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


def alpha_from_generated(tree, obj):
    coords = tree.nodes.new("ShaderNodeTexCoord")
    split = tree.nodes.new("ShaderNodeSeparateXYZ")
    first = tree.nodes.new("ShaderNodeMath")
    first.operation = "LESS_THAN"
    first.inputs[1].default_value = 1.01
    tree.links.new(coords.outputs["Generated"], split.inputs[0])
    tree.links.new(split.outputs["X"], first.inputs[0])
    tree.links.new(first.outputs[0], tree.nodes["Principled BSDF"].inputs["Alpha"])


def lone(kind):
    def surface(tree, obj):
        tree.links.new(tree.nodes.new(kind).outputs[0], tree.nodes["Material Output"].inputs["Surface"])
    return surface


def alpha_at_fixed_points(tree, obj):
    """An alpha image opaque only around where an unshifted R2 pattern samples the slats."""
    ev = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    me = ev.to_mesh()
    me.calc_loop_triangles()
    co = np.array([v.co[:] for v in me.vertices])
    tv = np.array([t.vertices[:] for t in me.loop_triangles])
    ev.to_mesh_clear()
    t = co[tv]
    area = 0.5 * np.linalg.norm(np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0]), axis=1)
    per = 1 + np.floor((4096 - len(tv)) * area / area.sum()).astype(np.int64)
    tri = np.repeat(np.arange(len(tv)), per)
    k = (np.arange(len(tri)) - np.repeat(np.cumsum(per) - per, per)).astype(np.float64)
    r2 = 1.32471795724474602596
    u, v = (0.5 + k / r2) % 1.0, (0.5 + k / r2 ** 2) % 1.0
    fold = u + v > 1
    u[fold], v[fold] = 1 - u[fold], 1 - v[fold]
    local = np.einsum("nk,nkd->nd", np.stack([1 - u - v, u, v], axis=1), co[tv[tri]])
    res = 1024
    alpha = np.zeros((res, res), dtype=np.float32)
    ix = np.floor((local[:, 0] + 0.1) * res).astype(int)
    iy = np.floor(local[:, 2] * res).astype(int)
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            alpha[np.clip(iy + dy, 0, res - 1), np.clip(ix + dx, 0, res - 1)] = 1.0
    px = np.ones((res, res, 4), dtype=np.float32)
    px[..., 3] = alpha
    img = bpy.data.images.new("Grain", res, res, alpha=True)
    img.pixels.foreach_set(px.ravel())
    img.pack()
    coords = tree.nodes.new("ShaderNodeTexCoord")
    split = tree.nodes.new("ShaderNodeSeparateXYZ")
    shift = tree.nodes.new("ShaderNodeMath")
    shift.operation = "ADD"
    shift.inputs[1].default_value = 0.1
    join = tree.nodes.new("ShaderNodeCombineXYZ")
    tex = tree.nodes.new("ShaderNodeTexImage")
    tex.image, tex.interpolation = img, "Closest"
    tree.links.new(coords.outputs["Object"], split.inputs[0])
    tree.links.new(split.outputs["X"], shift.inputs[0])
    tree.links.new(shift.outputs[0], join.inputs["X"])
    tree.links.new(split.outputs["Z"], join.inputs["Y"])
    tree.links.new(join.outputs[0], tex.inputs["Vector"])
    tree.links.new(tex.outputs["Alpha"], tree.nodes["Principled BSDF"].inputs["Alpha"])


def views():
    return [space for screen in bpy.data.screens for area in screen.areas for space in area.spaces
            if space.type == "VIEW_3D"]


def board(name, extra=None):
    """A 1.2 x 0.8 x 0.04 m board on a glazed material, a camera looking at it, a key light."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0)
    bmesh.ops.scale(bm, vec=(1.2, 0.8, 0.04), verts=bm.verts)
    mesh = bpy.data.meshes.new("Board")
    bm.to_mesh(mesh)
    bm.free()
    top = bpy.data.objects.new("Board", mesh)
    top.location.z = 0.7
    scene.collection.objects.link(top)
    glaze = bpy.data.materials.new("Glaze")
    glaze.use_nodes = True
    glaze.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.2, 0.4, 0.5, 1.0)
    glaze.diffuse_color = (0.2, 0.4, 0.5, 1.0)
    mesh.materials.append(glaze)
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    cam.location, cam.rotation_euler = (0.0, -3.0, 1.5), (1.1, 0.0, 0.0)
    scene.collection.objects.link(cam)
    scene.camera = cam
    key = bpy.data.objects.new("Key", bpy.data.lights.new("Key", "AREA"))
    key.location = (1.0, -1.0, 2.0)
    scene.collection.objects.link(key)
    if extra is not None:
        extra(scene, top, glaze, cam, key)
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


def wireframe(scene, top, glaze, cam, key):
    for space in views():
        space.shading.type = "WIREFRAME"


def texture_see_through(scene, top, glaze, cam, key):
    image = bpy.data.images.new("Clear", 16, 16, alpha=True)
    image.generated_color = (0.0, 0.0, 0.0, 0.0)
    node = glaze.node_tree.nodes.new("ShaderNodeTexImage")
    node.image = image
    glaze.node_tree.nodes.active = node
    for space in views():
        space.shading.type, space.shading.color_type = "SOLID", "TEXTURE"


def emission_pass(scene, top, glaze, cam, key):
    for space in views():
        space.shading.type, space.shading.render_pass = "MATERIAL", "EMISSION"


def local_camera_clipped(scene, top, glaze, cam, key):
    eye = bpy.data.objects.new("Eye", bpy.data.cameras.new("Eye"))
    eye.location = (0.0, 0.0, 0.7)
    eye.data.clip_start, eye.data.clip_end = 0.0001, 0.001
    scene.collection.objects.link(eye)
    for space in views():
        space.use_local_camera, space.camera = True, eye
        space.region_3d.view_perspective = "CAMERA"


def coat_carries_colour(scene, top, glaze, cam, key):
    bsdf = glaze.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (1.0, 1.0, 1.0, 1.0)
    bsdf.inputs["Coat Weight"].default_value = 1.0
    bsdf.inputs["Coat Roughness"].default_value = 0.0
    bsdf.inputs["Coat Tint"].default_value = (0.2, 0.4, 0.5, 1.0)


def glowing_strip(scene, top, glaze, cam, key):
    tree = glaze.node_tree
    coords = tree.nodes.new("ShaderNodeTexCoord")
    split = tree.nodes.new("ShaderNodeSeparateXYZ")
    strip = tree.nodes.new("ShaderNodeMath")
    strip.operation = "LESS_THAN"
    strip.inputs[1].default_value = 0.015
    tree.links.new(coords.outputs["Generated"], split.inputs[0])
    tree.links.new(split.outputs["X"], strip.inputs[0])
    tree.links.new(strip.outputs[0], tree.nodes["Principled BSDF"].inputs["Emission Strength"])


def reads_output_format(scene, top, glaze, cam, key):
    driver = key.data.driver_add("energy").driver
    var = driver.variables.new()
    var.name, var.type = "f", "SINGLE_PROP"
    var.targets[0].id_type, var.targets[0].id = "SCENE", scene
    var.targets[0].data_path = "render.image_settings.file_format"
    driver.expression = "100 if f == 17 else 0"


def reads_frame(scene, top, glaze, cam, key):  # what a rig keys against: allowed
    driver = key.data.driver_add("energy").driver
    var = driver.variables.new()
    var.name, var.type = "t", "SINGLE_PROP"
    var.targets[0].id_type, var.targets[0].id, var.targets[0].data_path = "SCENE", scene, "frame_current"
    driver.expression = "100 + 0 * t"


def vast_clip(scene, top, glaze, cam, key):
    cam.data.clip_start, cam.data.clip_end = 0.1, 1e9


slats("slats")
board("board")
for extra in (wireframe, texture_see_through, emission_pass, local_camera_clipped, coat_carries_colour, glowing_strip,
              reads_output_format, reads_frame, vast_clip):
    board(f"board_{extra.__name__}", extra)
slats("slats_generated_alpha", alpha_from_generated)
slats("slats_ray_portal", lone("ShaderNodeBsdfRayPortal"))
slats("slats_hair", lone("ShaderNodeBsdfHairPrincipled"))
slats("slats_alpha_at_fixed_points", alpha_at_fixed_points)
'''

CASES = {"SHOWN": ("parts_shown", {"objects": ["Slats"], "min_share": 0.98})}
BOARD_CASES = {
    "SIZE": ("dimensions", {"object": "Board", "expected": [1.2, 0.8, 0.04], "tolerance": 0.005}),
    "GLAZE": ("surface_shader", {"material": "Glaze", "shader": "BSDF_PRINCIPLED", "base_color": [0.2, 0.4, 0.5],
                                 "max_delta_e": 3.0, "max_emission": 0.01, "min_alpha": 0.99}),
    "RENDER": ("render_overrides", {}),
    "CLIP": ("clip_keeps", {"objects": ["Board"]}),
}
SEE_THROUGH = "see-through in a render"
EXPECTED = {
    "slats": {},
    "slats_generated_alpha": {"SHOWN": SEE_THROUGH},
    "slats_ray_portal": {"SHOWN": SEE_THROUGH},
    "slats_hair": {"SHOWN": SEE_THROUGH},
    "slats_alpha_at_fixed_points": {"SHOWN": SEE_THROUGH},
}
BOARD_EXPECTED = {
    "board": {}, "board_reads_frame": {},
    "board_wireframe": {"SIZE": "draws wireframes"},
    "board_texture_see_through": {"SIZE": "colours by texture"},
    "board_emission_pass": {"SIZE": "emission pass"},
    "board_local_camera_clipped": {"SIZE": "outside the clip range"},
    "board_coat_carries_colour": {"GLAZE": "Coat Tint"},
    "board_glowing_strip": {"GLAZE": "emission is above"},
    "board_reads_output_format": {"RENDER": "file_format"},
    "board_vast_clip": {"CLIP": "depth cannot hold it"},
}
NEW_OPERATORS = ("parts_ray_portal", "parts_hair_shader", "camera_clip_vast", "part_reads_frame_range",
                 "coat_tint_carries_colour", "emission_patch")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam24")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    return {"tmp": tmp, "slats": write_rule_task(tmp / "slats", CASES, "redteam24-slats", start_mode="from_scratch"),
            "board": write_rule_task(tmp / "board", BOARD_CASES, "redteam24-board", start_mode="from_scratch")}


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_texture_space_see_through_shaders_and_guessed_samples_are_refused(scenes, delivery):
    task, rubric = scenes["slats"]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task, rubric, scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)
    if delivery == "slats_generated_alpha":  # one slat of five shows: its own texture space, not the row's
        assert report["criteria"][0]["score"] == 0.0
        assert "opaque on 0.2" in report["criteria"][0]["detail"], report["criteria"][0]["detail"]


@pytest.mark.parametrize("delivery", sorted(BOARD_EXPECTED))
def test_opened_views_patches_coats_scene_reading_drivers_and_clip_ranges_are_refused(scenes, delivery):
    task, rubric = scenes["board"]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task, rubric, scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, BOARD_EXPECTED[delivery], delivery)


def test_the_new_operators_apply_and_are_killed(scenes):
    kills = {}
    for task, operators, killed_by in (
            ("slats", ["parts_ray_portal", "parts_hair_shader"], {"SHOWN"}),
            ("board", ["camera_clip_vast"], {"CLIP"}), ("board", ["part_reads_frame_range"], {"RENDER"}),
            ("board", ["coat_tint_carries_colour", "emission_patch"], {"GLAZE"})):
        task_path, rubric = scenes[task]
        with local_probe() as probe:
            rows = probe.mutate(scenes["tmp"] / f"{task}.blend", task_path, rubric, None, operators=operators)
        assert_operators_killed(rows, {op: killed_by for op in operators})
        kills.update({row["operator"]: row for row in rows})
    assert sorted(kills) == sorted(NEW_OPERATORS)


def test_the_new_operators_are_listed():
    assert set(NEW_OPERATORS) <= set(OPERATOR_NAMES)
