"""Red team 43 (issue 33), in real Blender: where the painter's strokes go, a swing back and forth,
and the cut-offs of the opened view.

crate-texture passed with Texture Paint's active slot on a second node of the image, connected to
nothing and fed a UV map with every face stacked, and with an all-black Mask (stencil) over every
stroke. ``image_texture``'s ``paint_slot`` reads the slot's UV map (``paint_uv_map``) and refuses a
Mask or cavity mask over the strokes (``probes_materials.PaintTarget``).

robot-carry passed with the turntable jerked back and forth every 6 frames, each change of step
9.4 cm (under 10) and no two within 4 frames (no shake as counted). ``moves_smoothly``
``max_swings``: changes over 5 cm each within 8 frames of the last, turned against it, at most that
many times in a row. Changes under 5 cm every 6 frames pass.

asset-hygiene passed with every view in Material Preview lit by a studio light of 0.001 (the check
was "more than 0"), and with a flat grey fill 3.2 dE from its grey background (the cut-off was 3):
a view lit below ``VIEW_LIGHT_MIN`` / ``STUDIO_LIGHT_MIN`` lights nothing, and flat fills closer
than ``FLAT_DISTINCT_DE`` (10) read as one. And with the old import scale in "_RNA_UI..." custom
properties: only Blender's own "_RNA_UI" key is skipped now.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import BPY_SCENE_HELPERS, assert_refused_as_expected, build_case_groups, probe_case

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = BPY_SCENE_HELPERS + r'''
def stacked_slot(scene, obj, mat):
    tree = mat.node_tree
    stacked = obj.data.uv_layers.new(name="PaintUV")
    for face in obj.data.polygons:
        for k, loop in enumerate(face.loop_indices):
            stacked.data[loop].uv = ((0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9))[k % 4]
    obj.data.uv_layers["CrateUV"].active = True
    decoy = tree.nodes.new("ShaderNodeTexImage")
    decoy.image = bpy.data.images["Img"]
    uvmap = tree.nodes.new("ShaderNodeUVMap")
    uvmap.uv_map = "PaintUV"
    tree.links.new(uvmap.outputs["UV"], decoy.inputs["Vector"])
    tree.nodes.active = decoy


def masked(scene, obj, mat):
    stencil = bpy.data.images.new("Mask", 64, 64)
    stencil.generated_color = (0.0, 0.0, 0.0, 1.0)
    paint = scene.tool_settings.image_paint
    paint.use_stencil_layer, paint.stencil_image = True, stencil


def swinging(name, change):
    """Box moving along X at 1 cm a frame for 60 frames, swung back and forth from frame 10 to 46,
    turning every 6 frames, each turn changing its step by ``change``."""
    scene = fresh()
    crate = box("Box", (0.25, 0.25, 0.25), (0.0, 0.0, 0.125))
    scene.frame_start, scene.frame_end = 1, 60
    for f in range(1, 61):
        phase = (f - 10 + 3) % 12
        wave = (change / 2) * ((phase if phase <= 6 else 12 - phase) - 3) if 10 < f < 46 else 0.0
        crate.location = (0.01 * f, wave, 0.125)
        crate.keyframe_insert("location", frame=f)
    save(name)


def lit_at(strength):
    def extra(scene, obj):
        for space in views():
            space.shading.type = "MATERIAL"
            space.shading.use_scene_lights = space.shading.use_scene_world = False
            space.shading.studiolight_intensity = strength
    return extra


def flat_near_background(scene, obj):
    for space in views():
        shading = space.shading
        shading.type, shading.light, shading.color_type = "SOLID", "FLAT", "SINGLE"
        shading.background_type, shading.background_color = "VIEWPORT", (0.05, 0.05, 0.05)
        shading.single_color = (0.066, 0.066, 0.066)
        shading.show_cavity = shading.show_shadows = shading.show_object_outline = False
        space.overlay.show_wireframes = False


def rna_ui_props(scene, obj):
    obj["_RNA_UI_import_scale"] = 0.01


painted("painted")
painted("painted_stacked_slot", stacked_slot)
painted("painted_masked", masked)
swinging("swing_small", 0.03)
swinging("swing_large", 0.094)
prop("prop")
prop("prop_lit_at_a_thousandth", lit_at(0.001))
prop("prop_flat_near_background", flat_near_background)
prop("prop_rna_ui_props", rna_ui_props)
'''

GROUPS = {
    "paint": {"PAINT": ("image_texture", {"material": "Paint", "image": "Img", "paint_slot": True,
                                          "paint_uv_map": "CrateUV"})},
    "swing": {"SWING": ("moves_smoothly", {"objects": ["Box"], "max_step": 0.25, "max_step_change": 0.1,
                                           "max_flicks": 2, "max_swings": 2, "frame_start": 1, "frame_end": 60})},
    "kept": {"KEPT": ("scene_unchanged", {"frame": 1})},
}
EXPECTED = {  # delivery -> (group, {criterion: what its failing detail says})
    "painted": ("paint", {}),
    "painted_stacked_slot": ("paint", {"PAINT": "through UV map 'PaintUV'"}),
    "painted_masked": ("paint", {"PAINT": "masked: Mask (stencil)"}),
    "swing_small": ("swing", {}),
    "swing_large": ("swing", {"SWING": "swung back and forth"}),
    "prop": ("kept", {}),
    "prop_lit_at_a_thousandth": ("kept", {"KEPT": "SM_Box (viewport)"}),
    "prop_flat_near_background": ("kept", {"KEPT": "SM_Box (viewport)"}),
    "prop_rna_ui_props": ("kept", {"KEPT": "SM_Box ([props])"}),
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    return build_case_groups(tmp_path_factory.mktemp("redteam43"), MAKE, GROUPS, "redteam43", "continue",
                             start_scene=("prop", "kept"))


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_where_strokes_go_a_swing_and_the_opened_views_cut_offs(scenes, delivery):
    group, refused = EXPECTED[delivery]
    report = probe_case(scenes, group, delivery)
    assert_refused_as_expected(report, refused, delivery)
    if group == "swing":
        measured = report["criteria"][0]["measured"]["Box"]
        assert measured["flicks_in_a_row"] <= 2 and (measured["swings_in_a_row"] > 2) is (delivery == "swing_large")
