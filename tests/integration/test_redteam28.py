"""Red team 28 (issue 33), in real Blender: a camera as the engines place it, a surface laid on a
part, a parametric value over a spread, pieces that hold each other by their faces, a viewport
display's metal and a strip light measured piece by piece.

* table-model passed with its camera scaled -1 on every axis: ``decompose`` folded the scale into
  a rotation facing the table, Cycles and EEVEE (which keep each axis' sign) look the other way;
  ``_camera_rays`` and ``picture_coords`` keep the sign now.  And with a plane of another
  material lying exactly on the top: ``parts_unoccluded`` counts a point another drawer's face
  lies on as covered.
* fence-array passed with a Geometry Nodes guard keeping the pickets only at the Counts the grader
  looked at (``modifier_effect``'s ``vary`` looks at a spread of values now), and with the rails
  above the pickets, touching them by an edge, or one rail floating above them
  (``parts_touch``'s ``each_piece`` and ``min_area``: every piece meets every piece face to face).
* mug-material passed with the glaze's viewport Metallic 1: solid view drew it near black.
* product-lighting passed with a 1 m x 4 mm strip light, one end 1.5 mm off the speaker: an area
  light counts cell by cell now (``emitter_cells``).
* fence-array's opened file showed an opaque image empty drawn In Front of the fence
  (``opened_view_hides``: an image empty over a part in an opened 3D view).

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
import math

from mathutils import Matrix, Vector


def filmed(name, scale):
    """A box and a camera 4 m in front of it, looking at it, its object scale ``scale``."""
    scene = fresh()
    box("SM_Box", (0.4, 0.4, 0.4), (0.0, 0.0, 0.2))
    cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
    scene.collection.objects.link(cam)
    cam.location = (0.0, -4.0, 0.2)
    cam.rotation_euler = (Vector((0.0, 0.0, 0.2)) - cam.location).to_track_quat("-Z", "Y").to_euler()
    cam.scale = scale
    scene.camera = cam
    save(name)


def slab(name, skin=False):
    """A 1 x 1 x 0.02 slab; with ``skin`` a plane of another material lying on its top face."""
    fresh()
    box("Slab", (1.0, 1.0, 0.02), (0.0, 0.0, 0.01))
    if skin:
        mesh = bpy.data.meshes.new("Skin")
        mesh.from_pydata([(-0.5, -0.5, 0.02), (0.5, -0.5, 0.02), (0.5, 0.5, 0.02), (-0.5, 0.5, 0.02)], [],
                         [(0, 1, 2, 3)])
        mesh.materials.append(bpy.data.materials.new("Paint"))
        bpy.context.scene.collection.objects.link(bpy.data.objects.new("Skin", mesh))
    save(name)


def row(name, guard=False):
    """One 8 cm picket and an Array of ten at 16 cm; with ``guard`` a Geometry Nodes modifier after
    it deleting every point below the delivered 80 vertices."""
    fresh()
    picket = box("Row", (0.08, 0.02, 0.95), (0.0, 0.0, 0.5))
    array = picket.modifiers.new("Array", "ARRAY")
    array.count, array.use_relative_offset, array.use_constant_offset = 10, False, True
    array.constant_offset_displace = (0.16, 0.0, 0.0)
    if guard:
        tree = bpy.data.node_groups.new("Guard", "GeometryNodeTree")
        tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
        tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
        nodes, links = tree.nodes, tree.links
        gin, gout = nodes.new("NodeGroupInput"), nodes.new("NodeGroupOutput")
        size = nodes.new("GeometryNodeAttributeDomainSize")
        fewer = nodes.new("FunctionNodeCompare")
        fewer.data_type, fewer.operation = "FLOAT", "LESS_THAN"
        fewer.inputs[1].default_value = 79.5
        delete = nodes.new("GeometryNodeDeleteGeometry")
        links.new(gin.outputs[0], size.inputs[0])
        links.new(size.outputs["Point Count"], fewer.inputs[0])
        links.new(gin.outputs[0], delete.inputs["Geometry"])
        links.new(fewer.outputs[0], delete.inputs["Selection"])
        links.new(delete.outputs[0], gout.inputs[0])
        picket.modifiers.new("Guard", "NODES").node_group = tree
    save(name)


def boxes(name, spec):
    """One object of several boxes: spec {object: [(size, centre)]}."""
    for obj_name, parts in spec.items():
        bm = bmesh.new()
        for size, centre in parts:
            bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation(centre) @ Matrix.Diagonal((*size, 1.0)))
        mesh = bpy.data.meshes.new(obj_name)
        bm.to_mesh(mesh)
        bm.free()
        bpy.context.scene.collection.objects.link(bpy.data.objects.new(obj_name, mesh))


def fence(name, rail_zs, picket_y=-0.06):
    """Two rails (1.6 x 0.03 x 0.07, front face y = -0.05) at ``rail_zs`` and two pickets
    (0.08 x 0.02, z 0.05-1.00) in front of them."""
    fresh()
    boxes(name, {"Rails": [((1.6, 0.03, 0.07), (0.0, -0.035, z)) for z in rail_zs],
                 "Pickets": [((0.08, 0.02, 0.95), (x, picket_y, 0.525)) for x in (-0.4, 0.4)]})
    save(name)


def glazed(name, viewport_metallic, shader_metallic=0.0):
    fresh()
    part = box("Mug", (0.1, 0.1, 0.1), (0.0, 0.0, 0.05))
    mat = bpy.data.materials.new("Glaze")
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (0.02, 0.16, 0.18, 1.0)
    bsdf.inputs["Metallic"].default_value = shader_metallic
    mat.diffuse_color = (0.02, 0.16, 0.18, 1.0)
    mat.metallic, mat.roughness = viewport_metallic, 0.0
    part.data.materials.append(mat)
    save(name)


def lit(name, extra):
    """A 0.2 m product, a 15 W 1 m square fill 2 m in front, and ``extra``: a 0.1 W area light
    (long: 1 m x 4 mm, one end 1.5 mm off the product's front; square: 4 mm, at the same centre)."""
    scene = fresh()
    box("Product", (0.2, 0.2, 0.2), (0.0, 0.0, 0.1))
    for light_name, size, size_y, energy, where in (
            ("Fill", 1.0, 1.0, 15.0, (0.0, -2.0, 0.1)),
            (extra, 1.0 if extra == "Strip" else 0.004, 0.004, 0.1, (0.40, -0.1015, 0.1))):
        data = bpy.data.lights.new(light_name, "AREA")
        data.shape, data.size, data.size_y, data.energy = "RECTANGLE", size, size_y, energy
        light = bpy.data.objects.new(light_name, data)
        scene.collection.objects.link(light)
        light.location = where
        light.rotation_euler = (math.radians(90.0), 0.0, 0.0)  # facing +Y: the product
    save(name)


def imaged(name, where, in_front=True):
    """A box and an opaque image empty 3 m across facing the 3D view the file opens on, placed
    ``where`` of the way from the box towards that view's eye (negative: behind the box)."""
    fresh()
    box("SM_Box", (0.4, 0.4, 0.4), (0.0, 0.0, 0.2))
    window = bpy.context.window_manager.windows[0]
    opened = next(space for area in window.screen.areas for space in area.spaces if space.type == "VIEW_3D")
    eye = opened.region_3d.view_matrix.inverted().translation  # as saved (background Blender never redraws it)
    centre = Vector((0.0, 0.0, 0.2))
    image = bpy.data.images.new("Cover", 8, 8)
    image.pixels.foreach_set([0.2, 0.6, 0.2, 1.0] * 64)
    image.pack()
    cover = bpy.data.objects.new("Cover", None)
    cover.empty_display_type, cover.data, cover.empty_display_size = "IMAGE", image, 3.0
    cover.show_in_front = in_front
    cover.location = centre + (eye - centre) * where
    cover.rotation_euler = (eye - centre).to_track_quat("Z", "Y").to_euler()
    bpy.context.scene.collection.objects.link(cover)
    save(name)


imaged("image_in_front", 0.5)
imaged("image_before_box", 0.5, in_front=False)
imaged("image_behind_box", -0.5, in_front=False)
filmed("filmed", (1.0, 1.0, 1.0))
filmed("filmed_mirrored_x", (-1.0, 1.0, 1.0))
filmed("filmed_scaled_negative", (-1.0, -1.0, -1.0))
slab("slab")
slab("slab_skinned", skin=True)
row("row")
row("row_guarded", guard=True)
fence("fence", (0.25, 0.80))
fence("fence_joined", (0.25, 0.80), picket_y=-0.055)
fence("fence_rails_above_edge", (1.035, 1.105))
fence("fence_rail_floating", (0.25, 1.065))
glazed("glaze", 0.0)
glazed("glaze_viewport_metal", 1.0)
glazed("gold_viewport_metal", 1.0, shader_metallic=1.0)
lit("lit_square", "Square")
lit("lit_strip", "Strip")
'''

CASES = {
    "camera": {"CAM": ("render_overrides", {"camera_keeps": ["SM_Box"]})},
    "seen": {"SEEN": ("parts_unoccluded", {"object": "Slab", "min_share": 0.6})},
    "vary": {"VARY": ("modifier_effect", {"object": "Row", "type": "ARRAY",
                                          "vary": {"property": "count", "by": 2, "islands": 2}})},
    "touch": {"TOUCH": ("parts_touch", {"object": "Rails", "others": ["Pickets"], "tolerance": 0.003,
                                        "each_piece": True, "min_area": 0.0001})},
    "viewport": {"VIEW": ("base_color", {"material": "Glaze", "expected": [0.02, 0.16, 0.18], "max_delta_e": 5.0,
                                         "source": "viewport"})},
    "opened": {"SIZE": ("dimensions", {"object": "SM_Box", "expected": [0.4, 0.4, 0.4], "tolerance": 0.005})},
    "light": {"LIGHT": ("light_power", {"max_power": 15, "exclude": ["Fill"], "target": "Product",
                                        "no_brighter_than": "Fill"})},
}
# (task, delivery) -> {criterion: what its detail names}
EXPECTED = {
    ("camera", "filmed"): {},
    ("camera", "filmed_mirrored_x"): {},  # a picture flipped left-right still shows the box
    ("camera", "filmed_scaled_negative"): {"CAM": "picture holds none of SM_Box"},
    ("seen", "slab"): {},
    ("seen", "slab_skinned"): {"SEEN": "Slab ("},
    ("vary", "row"): {},
    ("vary", "row_guarded"): {"VARY": "count -2 changes them by -10"},
    ("touch", "fence"): {},
    ("touch", "fence_joined"): {},  # pickets sunk 5 mm into the rails: joined
    ("touch", "fence_rails_above_edge"): {"TOUCH": "pieces apart: Rails[0] / Pickets[0]"},
    ("touch", "fence_rail_floating"): {"TOUCH": "pieces apart: Rails[1] / Pickets[0]"},
    ("viewport", "glaze"): {},
    ("viewport", "glaze_viewport_metal"): {"VIEW": "viewport Metallic is 1"},
    ("opened", "image_in_front"): {"SIZE": "behind image empty 'Cover'"},
    ("opened", "image_before_box"): {"SIZE": "behind image empty 'Cover'"},
    ("opened", "image_behind_box"): {},
    ("light", "lit_square"): {},
    ("light", "lit_strip"): {"LIGHT": "Strip: 0.1 W"},
}
NEW_OPERATORS = ("camera_scaled_negative", "coincident_skin_over_parts", "parametric_guard_below_delivered",
                 "touching_piece_lifted_clear", "viewport_display_metallic", "strip_light_against_target",
                 "image_empty_over_parts")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam28")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    tasks = {task: write_rule_task(tmp / task, cases, f"redteam28-{task}", start_mode="from_scratch")
             for task, cases in CASES.items()}
    return {"tmp": tmp, **tasks}


@pytest.mark.parametrize(("task", "delivery"), sorted(EXPECTED))
def test_cameras_covers_spreads_contacts_viewport_metal_and_strips_are_measured(scenes, task, delivery):
    task_path, rubric = scenes[task]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task_path, rubric,
                         scenes["tmp"] / f"report-{task}-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[(task, delivery)], delivery)


def test_a_gold_whose_shader_is_metal_may_show_metal_in_the_viewport(scenes):
    task_path, rubric = write_rule_task(scenes["tmp"] / "gold", {"VIEW": (
        "base_color", {"material": "Glaze", "expected": [0.02, 0.16, 0.18], "max_delta_e": 5.0,
                       "source": "viewport"})}, "redteam28-gold", start_mode="from_scratch")
    report = probe_local(scenes["tmp"] / "gold_viewport_metal.blend", task_path, rubric,
                         scenes["tmp"] / "report-gold.json")
    assert_refused_as_expected(report, {}, "gold_viewport_metal")


def test_the_new_operators_apply_and_are_killed(scenes):
    kills = {}
    for task, blend, operator, killed_by in (
            ("camera", "filmed", "camera_scaled_negative", {"CAM"}),
            ("seen", "slab", "coincident_skin_over_parts", {"SEEN"}),
            ("vary", "row", "parametric_guard_below_delivered", {"VARY"}),
            ("touch", "fence", "touching_piece_lifted_clear", {"TOUCH"}),
            ("viewport", "glaze", "viewport_display_metallic", {"VIEW"}),
            ("light", "lit_square", "strip_light_against_target", {"LIGHT"}),
            ("opened", "image_behind_box", "image_empty_over_parts", {"SIZE"})):
        task_path, rubric = scenes[task]
        with local_probe() as probe:
            rows = probe.mutate(scenes["tmp"] / f"{blend}.blend", task_path, rubric, None, operators=[operator])
        assert_operators_killed(rows, {operator: killed_by})
        kills.update({row["operator"]: row for row in rows})
    assert sorted(kills) == sorted(NEW_OPERATORS)


def test_the_new_operators_are_listed():
    assert set(NEW_OPERATORS) <= set(OPERATOR_NAMES)
