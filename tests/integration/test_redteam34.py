"""Red team 34 (issue 33), in real Blender: a parametric Array keeps its spacing; the opened
file's views that draw a part black on black; a leg that meets the top by a point.

* fence-array passed with a driver setting the picket Array's offset to 0.16 only at Count 10
  and to 0.0805 at any other Count: at Count 12 the configurator got a board of pickets 0.5 mm
  apart, half as long -- and still one picket more per Count, all that was counted.
  ``modifier_effect``'s ``vary`` takes a ``pitch_tolerance``: at each changed value every gap
  between neighbouring parts' centres is the delivered pitch within it.
* table-model passed opening on a Material Preview lit by a black world and a sun hidden in
  viewports (``_view_unlit`` counted any world and any rendered light), and on Solid shading lit
  Studio with a black single colour on a black background (only Flat lighting was judged).
* product-lighting passed with the key's and the fill's Power driven by the frame rate (their
  watts at 24 fps, none at 25): a driver may read the frame rate only to move an object or a
  bone (``_moves``); the extra lights' bound holds on the plinth too (its rubric's C23).
* mug-material passed with a copy of the glaze on one face of the foot (within the 0.1 % of area
  another material may cover), its Volume glowing: ``material_on_faces`` refuses a volume on any
  other material on the part's faces (``_volumes_of_others``).
* table-model's legs as pyramids touching the top by their apex (arguable, refused): the table's
  ``parts_touch`` asks 1 cm2 face to face (``min_area``), as a foot on the floor.

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
def row(name, pinned=False, relative=False):
    """"Row": one 8 cm picket and a live Array of 10 (0.16 m constant offset, or relative 2.0);
    ``pinned``: a driver keeps that offset only at Count 10."""
    fresh()
    obj = box("Row", (0.08, 0.02, 0.95), (0.0, 0.0, 0.525))
    mod = obj.modifiers.new("Array", "ARRAY")
    mod.fit_type, mod.count = "FIXED_COUNT", 10
    if relative:
        mod.relative_offset_displace = (2.0, 0.0, 0.0)
    else:
        mod.use_relative_offset, mod.use_constant_offset = False, True
        mod.constant_offset_displace = (0.16, 0.0, 0.0)
    if pinned:
        curve = mod.driver_add("constant_offset_displace", 0)
        curve.driver.type = "SCRIPTED"
        var = curve.driver.variables.new()
        var.name, var.type = "n", "SINGLE_PROP"
        var.targets[0].id = obj
        var.targets[0].data_path = 'modifiers["Array"].count'
        curve.driver.expression = "0.16 if n == 10 else 0.0805"
    save(name)


row("row")
row("row_relative", relative=True)  # relative 2.0 of an 8 cm picket: the same 0.16 pitch
row("row_pinned", pinned=True)


def viewed(name, shade):
    """SM_Box and a sun hidden in viewports; every 3D view set up by ``shade(shading, space)``."""
    scene = fresh()
    box("SM_Box", (0.4, 0.4, 0.4), (0.0, 0.0, 0.2))
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    scene.collection.objects.link(sun)
    sun.hide_viewport = True  # it renders; the viewport does not light by it
    world = bpy.data.worlds.new("World")
    world.use_nodes = True
    scene.world = world
    for space in views():
        space.overlay.show_overlays = False
        shade(space.shading, space, world)
    save(name)


def preview(black_world):
    def shade(shading, space, world):
        shading.type = "MATERIAL"
        shading.use_scene_lights = shading.use_scene_world = True
        shading.studiolight_intensity = 0.0
        background = next(n for n in world.node_tree.nodes if n.type == "BACKGROUND")
        background.inputs["Strength"].default_value = 0.0 if black_world else 1.0
    return shade


def studio(grey):
    def shade(shading, space, world):
        shading.type, shading.light, shading.color_type = "SOLID", "STUDIO", "SINGLE"
        shading.single_color = (grey, grey, grey)
        shading.show_specular_highlight = shading.show_cavity = shading.show_shadows = False
        shading.show_object_outline = False
        shading.background_type, shading.background_color = "VIEWPORT", (0.0, 0.0, 0.0)
    return shade


# red team 34: a black world at strength 0 and a sun hidden in viewports: Material Preview draws black
viewed("box_preview_black_world", preview(True))
viewed("box_preview_world_shines", preview(False))
# red team 34: Studio lighting, a black single colour without specular, on black
viewed("box_studio_black_on_black", studio(0.0))
viewed("box_studio_grey_on_black", studio(0.5))


def leg(name, spike):
    """A 0.6 m slab at 0.71 m on a leg under its middle: a 6 cm post, or a pyramid whose apex
    touches the slab's underside."""
    fresh()
    box("Top", (0.6, 0.6, 0.04), (0.0, 0.0, 0.73))
    if spike:
        bm = bmesh.new()
        base = [bm.verts.new(c) for c in [(-0.08, -0.08, 0), (0.08, -0.08, 0), (0.08, 0.08, 0), (-0.08, 0.08, 0)]]
        apex = bm.verts.new((0, 0, 0.71))
        bm.faces.new(list(reversed(base)))
        for i in range(4):
            bm.faces.new([base[i], base[(i + 1) % 4], apex])
        bmesh.ops.recalc_face_normals(bm, faces=bm.faces)
        mesh = bpy.data.meshes.new("Leg")
        bm.to_mesh(mesh)
        bm.free()
        bpy.context.scene.collection.objects.link(bpy.data.objects.new("Leg", mesh))
    else:
        box("Leg", (0.06, 0.06, 0.71), (0.0, 0.0, 0.355))
    save(name)


leg("post_leg", False)
leg("spike_leg", True)  # red team 34: a point under the top


def lamp(name, driven=None):
    """A box lit by a 60 W point light at x = 1; ``driven``: a driver reading the frame rate on
    the light's Power ("energy") or on the light object's X location ("location")."""
    scene = fresh()
    box("SM_Box", (0.4, 0.4, 0.4), (0.0, 0.0, 0.2))
    light = bpy.data.objects.new("Lamp", bpy.data.lights.new("Lamp", "POINT"))
    scene.collection.objects.link(light)
    light.data.energy, light.location = 60.0, (1.0, 0.0, 1.0)
    if driven is not None:
        owner, path, expression = ((light.data, "energy", "60.0 * (f == 24)") if driven == "energy" else
                                   (light, "location", "1.0 + 0.0 * f"))
        curve = owner.driver_add(path, 0) if path == "location" else owner.driver_add(path)
        curve.driver.type = "SCRIPTED"
        var = curve.driver.variables.new()
        var.name, var.type = "f", "SINGLE_PROP"
        var.targets[0].id_type, var.targets[0].id = "SCENE", scene
        var.targets[0].data_path = "render.fps"
        curve.driver.expression = expression
    save(name)


lamp("lamp")
lamp("lamp_power_by_rate", "energy")  # red team 34: 60 W at 24 fps, 0 at a farm's 25
lamp("lamp_moved_by_rate", "location")  # a rig keying motion against the frame rate


def spare_face(name, glow):
    """"Part": a box in Glaze, its top face in Spare (a copy; its Volume glowing when ``glow``)."""
    fresh()
    part = box("Part", (0.4, 0.4, 0.4), (0.0, 0.0, 0.2))
    glaze = bpy.data.materials.new("Glaze")
    glaze.use_nodes = True
    spare = glaze.copy()
    spare.name = "Spare"
    if glow:
        tree = spare.node_tree
        volume = tree.nodes.new("ShaderNodeVolumePrincipled")
        volume.inputs["Density"].default_value, volume.inputs["Emission Strength"].default_value = 0.0, 50.0
        tree.links.new(volume.outputs[0], next(n for n in tree.nodes if n.type == "OUTPUT_MATERIAL").inputs["Volume"])
    part.data.materials.append(glaze)
    part.data.materials.append(spare)
    next(p for p in part.data.polygons if p.normal.z > 0.9).material_index = 1
    save(name)


spare_face("spare_plain", False)
spare_face("spare_glowing", True)  # red team 34: a glowing volume on the share another material may cover
'''

CASES = {"row": {"ARRAY": ("modifier_effect", {
    "object": "Row", "type": "ARRAY", "min_islands_added": 9,
    "vary": {"property": "count", "by": 2, "islands": 2, "pitch_tolerance": 0.002}})},
    "view": {"SIZE": ("dimensions", {"object": "SM_Box", "expected": [0.4, 0.4, 0.4], "tolerance": 0.005})},
    "leg": {"TOUCH": ("parts_touch", {"object": "Top", "others": ["Leg"], "tolerance": 0.003, "min_area": 0.0001})},
    "faces": {"FACES": ("material_on_faces", {"object": "Part", "material": "Glaze", "min_share": 0.8})},
    "lamp": {"KEPT": ("scene_unchanged", {"frame": 1, "allow_changed": {"Lamp": ["drivers"]}})}}
EXPECTED = {
    ("row", "row"): {},
    ("row", "row_relative"): {},
    ("row", "row_pinned"): {"ARRAY": "moves a gap 0.0795 m off the pitch 0.16 m"},
    ("view", "box_preview_black_world"): {"SIZE": "lights nothing"},
    ("view", "box_preview_world_shines"): {},
    ("view", "box_studio_black_on_black"): {"SIZE": "background's own colour"},
    ("view", "box_studio_grey_on_black"): {},
    ("leg", "post_leg"): {},
    ("leg", "spike_leg"): {"TOUCH": "not touching Top"},
    ("faces", "spare_plain"): {},
    ("faces", "spare_glowing"): {"FACES": "another material on its faces renders a volume"},
    ("lamp", "lamp_power_by_rate"): {"KEPT": "'energy' reads 'render.fps'"},
    ("lamp", "lamp_moved_by_rate"): {},  # the frame rate a rig keys motion against
}
NEW_OPERATORS = ("array_pitch_pinned_to_count", "light_power_read_from_frame_rate", "spare_face_volume_glow")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam34")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    tasks = {task: write_rule_task(tmp / task, cases, f"redteam34-{task}",
                                   start_mode=None if task == "lamp" else "from_scratch")
             for task, cases in CASES.items()}
    run_bpy(bpy_procs.VERIFIERS / "scene_snapshot.py", "--blend", tmp / "lamp.blend",
            "--out", tmp / "lamp" / "start_scene.json")
    return {"tmp": tmp, **tasks}


@pytest.mark.parametrize(("task", "delivery"), sorted(EXPECTED))
def test_a_parametric_array_keeps_its_pitch(scenes, task, delivery):
    task_path, rubric = scenes[task]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task_path, rubric,
                         scenes["tmp"] / f"report-{task}-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[(task, delivery)], delivery)


def test_the_new_operators_apply_and_are_killed(scenes):
    for task, blend, operator, killed_by in (("row", "row", "array_pitch_pinned_to_count", {"ARRAY"}),
                                             ("lamp", "lamp", "light_power_read_from_frame_rate", {"KEPT"}),
                                             ("faces", "spare_plain", "spare_face_volume_glow", {"FACES"})):
        task_path, rubric = scenes[task]
        with local_probe() as probe:
            rows = probe.mutate(scenes["tmp"] / f"{blend}.blend", task_path, rubric, None, operators=[operator])
        assert_operators_killed(rows, {operator: killed_by})


def test_the_new_operators_are_listed():
    assert set(NEW_OPERATORS) <= set(OPERATOR_NAMES)
