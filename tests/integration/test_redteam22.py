"""Red team 22 (issue 33), in real Blender: a light's shape as its world matrix gives it, a
driver reading the engine by another data-block's path, a world summed or textured past its
limit, parts that glow, the viewport's drawing of a material at every graded frame, what one
render cannot stand for, and the range Play plays.

* product-lighting passed with the key sheared into a strip (``light_settings`` refuses axes off
  square; the emitter is the parallelogram its axes span) and with the key's power driven by the
  engine read through a spare node group's Render Layers node (``render_reading_drivers`` asks
  Blender which scene path a target resolves to).
* fence-array passed with 64 Backgrounds added (``world_strength`` sums what reaches the
  output), a Checker and a float image of colour 1000 (``_texture_peak``), its wood glowing at
  500 (``lights_on`` counts the parts' own glow) and its pickets' viewport alpha at 0
  (``Probe.viewport_hides``).
* mug-material passed with its viewport colours keyed magenta from frame 2 (``base_color``
  reads the material as evaluated at the graded frame).
* table-model passed with unbaked rigid bodies, particles and a simulation zone, and with legs
  that read the active camera (``ShowsWhatItCannotMeasure``: every criterion 0), with a
  preview range past the end (``graded_frames`` adds it), and with the file opening on a view
  layer that hides the legs or on 3D views that leave meshes out (``open_delivery`` reads the
  file's own UI first: ``OPENED_VIEW``).

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import (
    assert_operators_killed, assert_refused_as_expected, local_probe, probe_local, run_bpy, write_rule_task,
)
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


def board(extra=None, name=None):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 3
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0)
    bmesh.ops.scale(bm, vec=(1.2, 0.8, 0.04), verts=bm.verts)
    mesh = bpy.data.meshes.new("Top")
    bm.to_mesh(mesh)
    bm.free()
    top = bpy.data.objects.new("Top", mesh)
    top.location.z = 0.73
    scene.collection.objects.link(top)
    wood = bpy.data.materials.new("Wood")
    wood.use_nodes = True
    wood.diffuse_color = (0.5, 0.3, 0.2, 1.0)
    mesh.materials.append(wood)
    key = bpy.data.objects.new("Key", bpy.data.lights.new("Key", "AREA"))
    key.data.energy, key.data.size = 60.0, 0.6
    key.location = (1.0, -1.0, 2.0)
    scene.collection.objects.link(key)
    world = bpy.data.worlds.new("World")
    scene.world = world
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Strength"].default_value = 1.0
    if extra is not None:
        extra(scene, top, key, wood)
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name or 'board'}.blend"))


def turned_scaled(scene, top, key, wood):
    key.rotation_euler = (0.4, 0.2, 0.9)
    key.scale = (1.2, 1.2, 1.2)


def sheared(scene, top, key, wood):
    a = math.radians(3.0)
    shear = Matrix(((1, math.cos(a), 0, 0), (0, math.sin(a), 0, 0), (0, 0, 1, 0), (0, 0, 0, 1)))
    basis = key.matrix_basis.copy()
    key.parent = top
    key.matrix_parent_inverse = top.matrix_world.inverted() @ basis @ shear @ basis.inverted()


def engine_by_node_group(scene, top, key, wood):
    group = bpy.data.node_groups.new("RigNotes", "CompositorNodeTree")
    group.use_fake_user = True
    node = group.nodes.new("CompositorNodeRLayers")
    node.name, node.scene = "Shot", scene
    driver = key.data.driver_add("energy").driver
    var = driver.variables.new()
    var.name, var.type = "e", "SINGLE_PROP"
    var.targets[0].id_type, var.targets[0].id = "NODETREE", group
    var.targets[0].data_path = 'nodes["Shot"].scene.render.engine'
    driver.expression = "60 * (e != 2)"


def world_summed(scene, top, key, wood):
    tree = scene.world.node_tree
    total = tree.nodes["Background"].outputs[0]
    tree.nodes["Background"].inputs["Strength"].default_value = 5.0
    tree.nodes["Background"].inputs["Color"].default_value = (1.0, 1.0, 1.0, 1.0)
    for _ in range(2):  # each at 5, under the limit of 10 alone; together 15
        bg = tree.nodes.new("ShaderNodeBackground")
        bg.inputs["Strength"].default_value = 5.0
        bg.inputs["Color"].default_value = (1.0, 1.0, 1.0, 1.0)
        add = tree.nodes.new("ShaderNodeAddShader")
        tree.links.new(total, add.inputs[0])
        tree.links.new(bg.outputs[0], add.inputs[1])
        total = add.outputs[0]
    tree.links.new(total, tree.nodes["World Output"].inputs["Surface"])


def checker(level):
    def world_checker(scene, top, key, wood):
        tree = scene.world.node_tree
        tex = tree.nodes.new("ShaderNodeTexChecker")
        if level is not None:
            tex.inputs["Color1"].default_value = tex.inputs["Color2"].default_value = (level, level, level, 1.0)
        tree.links.new(tex.outputs["Color"], tree.nodes["Background"].inputs["Color"])
    return world_checker


def glows(scene, top, key, wood):
    bsdf = wood.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Emission Color"].default_value = (1.0, 1.0, 1.0, 1.0)
    bsdf.inputs["Emission Strength"].default_value = 500.0


def see_through(scene, top, key, wood):
    wood.diffuse_color = (0.5, 0.3, 0.2, 0.0)


def keyed_later(scene, top, key, wood):
    wood.keyframe_insert("diffuse_color", frame=1)
    wood.diffuse_color = (1.0, 0.0, 1.0, 1.0)
    wood.keyframe_insert("diffuse_color", frame=2)
    wood.diffuse_color = (0.5, 0.3, 0.2, 1.0)
    for fc in wood.animation_data.action.layers[0].strips[0].channelbags[0].fcurves:
        for k in fc.keyframe_points:
            k.interpolation = "CONSTANT"
    scene.frame_set(1)


def preview_collapse(scene, top, key, wood):
    top.keyframe_insert("scale", index=2, frame=3)
    top.scale.z = 0.05
    top.keyframe_insert("scale", index=2, frame=4)
    top.scale.z = 1.0
    scene.use_preview_range = True
    scene.frame_preview_start, scene.frame_preview_end = 1, 6
    scene.frame_set(1)


def rigid_body(scene, top, key, wood):
    with bpy.context.temp_override(scene=scene):
        bpy.ops.rigidbody.world_add()
    with bpy.context.temp_override(object=top, active_object=top, selected_objects=[top]):
        bpy.ops.rigidbody.object_add(type="ACTIVE")
    scene.frame_set(1)


def particles(scene, top, key, wood):
    top.modifiers.new("Dust", "PARTICLE_SYSTEM")
    settings = top.particle_systems[-1].settings
    settings.count, settings.render_type, settings.physics_type = 10, "NONE", "NEWTON"


def gn_tree(name, build):
    tree = bpy.data.node_groups.new(name, "GeometryNodeTree")
    tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    inp, outp = tree.nodes.new("NodeGroupInput"), tree.nodes.new("NodeGroupOutput")
    build(tree, inp, outp)
    return tree


def simulation_zone(scene, top, key, wood):
    def build(tree, inp, outp):
        sim_in, sim_out = tree.nodes.new("GeometryNodeSimulationInput"), tree.nodes.new("GeometryNodeSimulationOutput")
        sim_in.pair_with_output(sim_out)
        tree.links.new(inp.outputs[0], sim_in.inputs[0])
        tree.links.new(sim_in.outputs[1], sim_out.inputs[1])
        tree.links.new(sim_out.outputs[0], outp.inputs[0])
    top.modifiers.new("Sim", "NODES").node_group = gn_tree("Sim", build)


def reads_camera(scene, top, key, wood):
    def build(tree, inp, outp):
        cam = tree.nodes.new("GeometryNodeInputActiveCamera")
        info = tree.nodes.new("GeometryNodeObjectInfo")
        tree.links.new(cam.outputs[0], info.inputs["Object"])
        tree.links.new(inp.outputs[0], outp.inputs[0])
    top.modifiers.new("Cam", "NODES").node_group = gn_tree("Cam", build)


def opened_layer_hides(scene, top, key, wood):
    """A second view layer, not rendered, hiding Top; the file's window saved on it."""
    work = scene.view_layers.new("Working")
    work.use = False
    top.hide_set(True, view_layer=work)
    for wm in bpy.data.window_managers:
        for window in wm.windows:
            window.view_layer = work


def view_filters_meshes(scene, top, key, wood):
    for screen in bpy.data.screens:
        for area in screen.areas:
            for space in area.spaces:
                if space.type == "VIEW_3D":
                    space.show_object_viewport_mesh = False


board()
board(opened_layer_hides, "opened_layer_hides")
board(view_filters_meshes, "view_filters_meshes")
board(turned_scaled, "key_turned_scaled")
board(sheared, "key_sheared")
board(engine_by_node_group, "engine_by_node_group")
board(world_summed, "world_summed")
board(checker(1000.0), "world_checker_bright")
board(checker(None), "world_checker_plain")
board(glows, "top_glows")
board(see_through, "viewport_see_through")
board(keyed_later, "viewport_keyed_later")
board(preview_collapse, "preview_collapse")
board(rigid_body, "rigid_body")
board(particles, "particles_newton")
board(simulation_zone, "simulation_zone")
board(reads_camera, "reads_camera")
'''

CASES = {
    "SIZE": ("dimensions", {"object": "Top", "expected": [1.2, 0.8, 0.04], "tolerance": 0.005}),
    "KEY": ("light_settings", {"object": "Key", "type": "AREA", "energy": 60, "min_emitter_size": 0.25}),
    "RENDER": ("render_overrides", {"max_world_strength": 10, "lights_on": {"objects": ["Top"], "max": 30}}),
    "VIEW": ("base_color", {"material": "Wood", "expected": [0.5, 0.3, 0.2], "max_delta_e": 3.0,
                            "source": "viewport"}),
}
MOTION = "cannot stand for"
ALL = {cid: MOTION for cid in CASES}
# delivery -> {criterion: what its detail names}
EXPECTED = {
    "board": {}, "key_turned_scaled": {}, "world_checker_plain": {},
    "key_sheared": {"KEY": "axes sheared"},
    "engine_by_node_group": {"RENDER": "drivers_read_render_settings"},
    "world_summed": {"RENDER": "max_world_strength"},
    "world_checker_bright": {"RENDER": "max_world_strength"},
    "top_glows": {"RENDER": "lights_on"},
    "viewport_see_through": {"SIZE": "see-through in the viewport", "VIEW": "alpha"},
    "viewport_keyed_later": {"VIEW": "dE2000"},
    "preview_collapse": {"SIZE": "max axis error"},
    "opened_layer_hides": {"SIZE": "the viewport does not show Top"},
    "view_filters_meshes": {"SIZE": "Object Types Visibility"},
    "rigid_body": ALL, "particles_newton": ALL, "simulation_zone": ALL, "reads_camera": ALL,
}
NEW_OPERATORS = ("light_sheared_by_parent", "engine_read_through_node_group", "world_backgrounds_added",
                 "world_texture_overbright", "parts_glow", "viewport_colour_keyed_later", "parts_fall_as_rigid_bodies",
                 "parts_read_active_camera", "parts_collapse_in_preview_range")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam22")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    return {"tmp": tmp, "board": write_rule_task(tmp / "board", CASES, "redteam22", start_mode="from_scratch")}


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_lights_drivers_world_glow_the_viewport_motion_and_the_preview_are_measured(scenes, delivery):
    task, rubric = scenes["board"]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task, rubric, scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)


def test_the_new_operators_apply_and_are_killed(scenes):
    task, rubric = scenes["board"]
    killed_by = {"light_sheared_by_parent": {"KEY"}, "engine_read_through_node_group": {"RENDER"},
                 "world_backgrounds_added": {"RENDER"}, "world_texture_overbright": {"RENDER"},
                 "parts_glow": {"RENDER"}, "viewport_colour_keyed_later": {"VIEW"},
                 "parts_fall_as_rigid_bodies": set(CASES), "parts_read_active_camera": set(CASES),
                 "parts_collapse_in_preview_range": {"SIZE"}}
    with local_probe() as probe:
        rows = probe.mutate(scenes["tmp"] / "board.blend", task, rubric, None, operators=list(NEW_OPERATORS))
    assert_operators_killed(rows, killed_by)


def test_the_new_operators_are_listed():
    assert set(NEW_OPERATORS) <= set(OPERATOR_NAMES)
