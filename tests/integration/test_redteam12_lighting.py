"""Red team 12 (issue 33), product-lighting, in real Blender: output nodes only Cycles renders,
and extra lights the camera sees.

* A Light (or World) Output whose target is one engine beats the active All output in that
  engine's render (Blender's ntreeShaderOutputNode): Key and Fill kept a white Emission at
  strength 1 into the active output and fed a Cycles-only output strength 0 (no key light in a
  Cycles render); an extra 15 W light fed one strength 400.  ``probes_surface.engine_outputs``
  now picks the output each production engine renders; ``lights_as_set``, ``light_power`` and
  ``studio_extras`` judge every one of them.
* An extra light whose Ray Visibility > Camera is on renders its emitter into the picture: a
  15 W sheet in front of the lens whited out the frame, a 10 W panel behind the product lit the
  dark backdrop.  ``light_power`` refuses a light the camera sees (``shown_to_camera``); a new
  light has camera visibility off, and a camera-visible point light of no radius shows nothing.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.probe_cases import local_probe, probe_local, assert_operators_killed, assert_refused_as_expected, run_bpy, write_rule_task
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

PROBES = Path(__file__).resolve().parents[2] / "seeds" / "product-lighting" / "draft" / "task_probes.py"

MAKE = r'''
import sys
from pathlib import Path

import bpy
from mathutils import Vector

out = Path(sys.argv[-1])
CENTRE = Vector((0.0, 0.0, 1.025))


def light(name, kind, location, energy, size=None, facing=None):
    data = bpy.data.lights.new(name, kind)
    data.energy = energy
    if size is not None:
        data.size = size
    obj = bpy.data.objects.new(name, data)
    obj.location = location
    look = (facing if facing is not None else CENTRE) - obj.location
    obj.rotation_euler = look.to_track_quat("-Z", "Y").to_euler()
    bpy.context.scene.collection.objects.link(obj)
    return obj


def rig():
    """A product, the key and fill as the spec asks, and a camera 2.6 m in front."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=CENTRE)
    product = bpy.context.active_object
    product.name, product.scale = "Product", (0.16, 0.16, 0.25)
    light("Key", "AREA", (-1.0, -1.0, 2.0), 60.0, size=0.6)
    light("Fill", "AREA", (1.4, -1.2, 1.3), 15.0, size=1.0)
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    bpy.context.scene.collection.objects.link(cam)
    cam.location = CENTRE + Vector((0.0, -2.6, 0.36))
    cam.rotation_euler = (CENTRE - cam.location).to_track_quat("-Z", "Y").to_euler()
    bpy.context.scene.camera = cam
    world = bpy.data.worlds.new("Studio")
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Strength"].default_value = 0.02
    bpy.context.scene.world = world
    return cam


def engine_output(tree, kind, target, strength):
    """A second, non-active output of ``kind`` for ``target`` fed by a white shader of ``strength``."""
    active = next(n for n in tree.nodes if n.bl_idname == kind and n.is_active_output)
    shader = tree.nodes.new("ShaderNodeBackground" if kind == "ShaderNodeOutputWorld" else "ShaderNodeEmission")
    shader.inputs["Strength"].default_value = strength
    output = tree.nodes.new(kind)
    output.target = target
    tree.links.new(shader.outputs[0], output.inputs["Surface"])
    active.is_active_output = True


def light_output(obj, target, strength):
    obj.data.use_nodes = True
    engine_output(obj.data.node_tree, "ShaderNodeOutputLight", target, strength)


def save(name):
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


# honest: a weak bounce light as a new light has it (camera visibility off), a second output that
# renders the same white light for Cycles, and a camera-visible point light of no radius
cam = rig()
light("Bounce", "AREA", CENTRE + Vector((0.0, -1.8, -0.6)), 3.0, size=2.0)
light_output(bpy.data.objects["Bounce"], "CYCLES", 1.0)
dot = light("Dot", "POINT", CENTRE + Vector((0.0, -3.0, 1.5)), 1.0)
dot.data.shadow_soft_size, dot.visible_camera = 0.0, True
save("rig")

rig()
light_output(bpy.data.objects["Key"], "CYCLES", 0.0)
light_output(bpy.data.objects["Fill"], "CYCLES", 0.0)
save("cycles_kills_key")

rig()
light_output(light("Bounce", "POINT", CENTRE + Vector((1.0, -2.8, 0.5)), 15.0), "CYCLES", 400.0)
save("cycles_boosts_extra")

rig()
light_output(bpy.data.objects["Key"], "EEVEE", 3.0)  # an EEVEE-only output judged too
save("eevee_boosts_key")

rig()
engine_output(bpy.context.scene.world.node_tree, "ShaderNodeOutputWorld", "CYCLES", 5.0)
save("cycles_bright_world")

cam = rig()
light("Diffuser", "AREA", CENTRE + Vector((0.0, -2.3, 0.32)), 15.0, size=0.6,
      facing=cam.location + (cam.location - CENTRE)).visible_camera = True
save("visible_light_sheet")

cam = rig()
light("Backdrop", "AREA", CENTRE + Vector((0.0, 2.5, 0.0)), 10.0, size=1.2, facing=cam.location).visible_camera = True
save("visible_backdrop")

rig()
glow = light("Glow", "POINT", CENTRE + Vector((0.8, 1.5, 0.3)), 5.0)
glow.data.shadow_soft_size, glow.visible_camera = 0.3, True
save("visible_ball")
'''

CASES = {
    "LIVE": ("lights_as_set", {"objects": ["Key", "Fill"]}),
    "POWER": ("light_power", {"exclude": ["Key", "Fill"], "min_power": 0, "max_power": 15, "target": "Product",
                              "no_brighter_than": "Fill"}),
    "EXTRAS": ("studio_extras", {"expected": ["Key", "Fill"], "max_power": 15, "max_world": 0.05}),
}
# delivery -> {criterion: what its detail names}
EXPECTED = {
    "rig": {},
    "cycles_kills_key": {"LIVE": "CYCLES light output: light nodes: emission colour"},
    # red team 26: studio_extras reads an extra light's output as REQ-EXTRAS words it (light_output)
    "cycles_boosts_extra": {"POWER": "CYCLES light output: emission 400", "EXTRAS": "other lights too strong"},
    "eevee_boosts_key": {"LIVE": "EEVEE light output: light nodes: emission colour"},
    "cycles_bright_world": {"EXTRAS": "CYCLES world output: background"},
    "visible_light_sheet": {"POWER": "Diffuser: its 0.6 m emitting panel shows to the camera"},
    "visible_backdrop": {"POWER": "Backdrop: its 1.2 m emitting panel shows to the camera"},
    "visible_ball": {"POWER": "Glow: its 0.3 m radius ball shows to the camera"},
}
NEW_OPERATORS = ("engine_light_output_off", "engine_light_output_boost", "camera_visible_light")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam12-lighting")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    task, rubric = write_rule_task(tmp / "task", CASES, "redteam12-lighting")
    return {"tmp": tmp, "task": task, "rubric": rubric}


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_what_a_cycles_render_shows_is_judged(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                                   scenes["tmp"] / f"report-{delivery}.json", PROBES)
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)


def test_the_new_operators_apply_and_are_killed(scenes):
    with local_probe() as probe:
        rows = probe.mutate(scenes["tmp"] / "rig.blend", scenes["task"], scenes["rubric"], PROBES,
                            operators=list(NEW_OPERATORS))
    assert_operators_killed(rows, {"engine_light_output_off": {"LIVE"}, "engine_light_output_boost": {"POWER", "EXTRAS"},
                                   "camera_visible_light": {"POWER"}})


def test_the_new_operators_are_listed():
    assert set(NEW_OPERATORS) <= set(OPERATOR_NAMES)
