"""Red team 41 (issue 33), in real Blender: how much of the image a layout gives the painter, the
probe's own camera, Blender's editing attributes, stored rotations, objects kept outside the
scene, and a render setting the task leaves to the solver.

crate-texture passed with every face's UVs shrunk to a few texels, each face on a corner of
``texture_influence``'s 16 x 16 coverage grid: 0.2 % of the tile read as 0.44 of it. Read at a
named UV map, coverage is now also the area the part's UV triangles cover, exactly.

asset-hygiene passed with a copy of every prop kept on an object named like the camera the probe
lends a scene without one (skipped by its name): the lent camera is known by its pointer now. It
passed with old positions in ``.select_import_position`` (the kept mesh's attribute digest
skipped every name starting ``.select_``): Blender's editing attributes are skipped by exact
name, domain and type. It passed with rotations of (360, 0, -360) degrees: ``transforms_applied``
reads the stored channels as stored. And with a camera and a sun kept by fake users in no scene:
``object_count`` over the whole file with no type counts them.

render-setup refused an honest delivery that set the tile size, a setting the task leaves to the
solver: Cycles keeps it as an ID property too, compared under ``[props]``; a setting the snapshot
skips is skipped there now.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import BPY_SCENE_HELPERS, assert_refused_as_expected, build_case_groups, probe_case

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = BPY_SCENE_HELPERS + r'''
import math


def shrunk(scene, obj, mat):
    """Each face's UVs at 2 % of their size on a corner of a 16 x 16 grid (the cube unwrap covers
    0.375 of the tile)."""
    layer = obj.data.uv_layers["CrateUV"]
    for i, face in enumerate(obj.data.polygons):
        corner = ((1 + 2 * i) / 16, (1 + 2 * i) / 16)
        loops = list(face.loop_indices)
        uvs = [tuple(layer.data[k].uv) for k in loops]
        cu, cv = sum(u for u, _ in uvs) / len(uvs), sum(v for _, v in uvs) / len(uvs)
        for k, (u, v) in zip(loops, uvs):
            layer.data[k].uv = (corner[0] + (u - cu) * 0.02, corner[1] + (v - cv) * 0.02)


def leftover_named_like_probe_camera(scene, obj):
    copy = bpy.data.objects.new("arkevo probe camera", obj.data.copy())
    holder = bpy.data.collections.new("OldImports")
    holder.use_fake_user = True
    holder.objects.link(copy)


def camera_and_light_outside(scene, obj):
    camera = bpy.data.objects.new("HelperCam", bpy.data.cameras.new("HelperCam"))
    light = bpy.data.objects.new("HelperSun", bpy.data.lights.new("HelperSun", "SUN"))
    camera.use_fake_user = light.use_fake_user = True


def editing_prefix_attribute(scene, obj):
    positions = obj.data.attributes.new(".select_import_position", "FLOAT_VECTOR", "POINT")
    for vertex, value in zip(obj.data.vertices, positions.data):
        value.vector = vertex.co * 100


def edited(scene, obj):
    """What editing leaves: a selection and pinned UVs (Blender's own attributes; a hidden face
    is part of how the file shows the prop: "viewport")."""
    obj.data.vertices[0].select = True
    obj.data.polygons[1].select = True
    pins = obj.data.attributes.get(".pn.CrateUV") or obj.data.attributes.new(".pn.CrateUV", "BOOLEAN", "CORNER")
    pins.data[0].value = True


def full_turns(scene, obj):
    obj.rotation_euler = (2 * math.pi, 0.0, -2 * math.pi)


def tile_size_set(scene, obj):
    scene.cycles.tile_size = 512
    scene.cycles.use_auto_tile = not scene.cycles.use_auto_tile
    scene.cycles.device = "GPU"


painted("painted")
painted("painted_shrunk", shrunk)
prop("prop")
prop("prop_leftover_named_like_probe_camera", leftover_named_like_probe_camera)
prop("prop_camera_and_light_outside", camera_and_light_outside)
prop("prop_editing_prefix_attribute", editing_prefix_attribute)
prop("prop_edited", edited)
prop("prop_full_turns", full_turns)
prop("prop_tile_size_set", tile_size_set)
fresh()
box("SM_Box", (0.4, 0.4, 0.4), (0.0, 0.0, 0.2))
save("no_camera")
'''

Cases = dict[str, tuple[str, dict]]
TEXTURE: Cases = {"TEX": ("texture_influence", {"object": "SM_Box", "image": "Img", "input": "Base Color",
                                         "min_influence": 0.5, "uv_map": "CrateUV"})}
FILE: Cases = {"MESHES": ("object_count", {"type": "MESH", "min": 1, "max": 1, "whole_file": True}),
        "OBJECTS": ("object_count", {"min": 1, "max": 2, "whole_file": True})}
TURNS: Cases = {"APPLIED": ("transforms_applied", {"object": "SM_Box", "scale": True, "rotation": True})}
KEPT: Cases = {"KEPT": ("scene_unchanged", {"frame": 1})}

GROUPS = {"texture": TEXTURE, "file": FILE, "turns": TURNS, "kept": KEPT}
EXPECTED: dict[str, tuple[str, dict[str, str]]] = {  # delivery -> (group, {criterion: what its failing detail says})
    "painted": ("texture", {}),
    "painted_shrunk": ("texture", {"TEX": "of the image (min 0.25)"}),
    "no_camera": ("file", {}),
    "prop": ("file", {}),
    "prop_leftover_named_like_probe_camera": ("file", {"MESHES": "2 MESH in the file", "OBJECTS": "3 objects"}),
    "prop_camera_and_light_outside": ("file", {"OBJECTS": "4 objects in the file"}),
    "prop_full_turns": ("turns", {"APPLIED": "rotation (rotation_euler)"}),
    "prop_edited": ("kept", {}),
    "prop_editing_prefix_attribute": ("kept", {"KEPT": "SM_Box (attributes)"}),
    "prop_tile_size_set": ("kept", {}),
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    return build_case_groups(tmp_path_factory.mktemp("redteam41"), MAKE, GROUPS, "redteam41", "continue",
                             start_scene=("prop", "kept"))


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_what_the_file_holds_and_how_much_of_the_image_the_layout_gives(scenes, delivery):
    group, refused = EXPECTED[delivery]
    report = probe_case(scenes, group, delivery)
    assert_refused_as_expected(report, refused, delivery)
    if group == "texture":  # the exact UV area beside the grid's reading
        [node] = report["criteria"][0]["evidence"]["nodes"]
        assert node["uv_area"] == pytest.approx(0.375 if delivery == "painted" else 0.375 * 0.02 ** 2, rel=1e-3)
