"""Red team 11 (issue 33), in real Blender: coordinates read From Instancer, a subdivision Cycles
dices at render time, and a box that leaps into the grip.

* A UV Map or Texture Coordinate node with From Instancer on reads the coordinates of whatever
  instances the object; on an object nothing instances every point reads one texel.  The surface
  evaluator read the object's own UVs; now such coordinates are not evaluated, so
  `texture_influence` finds no texture shown.
* Adaptive subdivision is done by Cycles while it renders, after the depsgraph every probe reads
  (which keeps the cage): `unmeasured_geometry` names it, `solid_parts` refuses the part.
* A pickup or set-down step (rests only at one frame, held only at the next) was exempt from the
  slip check: with `snap_tolerance` the box must stay on the table or move with the carrier across
  it, each point within the tolerance; a box that jumps 15 cm into the grip is refused, a box
  taken where it sits passes, and so does one that the pad takes a frame later, 1.5 cm off.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import probe_local, assert_refused_as_expected, run_bpy, write_rule_task
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = r'''
import sys
from pathlib import Path

import bpy

out = Path(sys.argv[-1])


def start():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0.0, 0.0, 0.5))
    cube = bpy.context.active_object
    cube.name = "Cube"
    mat = bpy.data.materials.new("Grid")
    mat.use_nodes = True
    tree = mat.node_tree
    image = bpy.data.images.new("GridImage", 64, 64)
    image.generated_type = "COLOR_GRID"
    tex = tree.nodes.new("ShaderNodeTexImage")
    tex.image = image
    tree.links.new(tex.outputs["Color"], tree.nodes["Principled BSDF"].inputs["Base Color"])
    cube.data.materials.append(mat)
    cube.data.uv_layers[0].name = "UVMap"
    return cube, tree, tex


def coords(name, kind):
    cube, tree, tex = start()
    node = tree.nodes.new("ShaderNodeUVMap" if kind == "uvmap" else "ShaderNodeTexCoord")
    if kind == "uvmap":
        node.uv_map = "UVMap"
    node.from_instancer = name.endswith("instancer")
    tree.links.new(node.outputs["UV"], tex.inputs["Vector"])
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


coords("uvmap", "uvmap")
coords("uvmap_instancer", "uvmap")
coords("texcoord_instancer", "texcoord")

cube, _, _ = start()
sub = cube.modifiers.new("Subsurf", "SUBSURF")
sub.levels = sub.render_levels = 0
bpy.ops.wm.save_as_mainfile(filepath=str(out / "subsurf_plain.blend"))
sub.use_adaptive_subdivision = True
bpy.context.scene.render.engine = "CYCLES"
bpy.ops.wm.save_as_mainfile(filepath=str(out / "subsurf_adaptive.blend"))


def carry(name, tip_z, box_z):
    """A 0.2 m box on a table top at z 0.75 and a tip (an empty), both keyed at frames 1..8 to the
    heights given (the box's centre; its top is 0.1 higher)."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 8
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0.0, 0.0, 0.375))
    table = bpy.context.active_object
    table.name, table.scale = "Table", (1.0, 1.0, 0.75)
    bpy.ops.mesh.primitive_cube_add(size=0.2, location=(0.0, 0.0, 0.85))
    box = bpy.context.active_object
    box.name = "Box"
    tip = bpy.data.objects.new("Tip", None)
    scene.collection.objects.link(tip)
    for f, (tz, bz) in enumerate(zip(tip_z, box_z), start=1):
        tip.location, box.location = (0.0, 0.0, tz), (0.0, 0.0, bz)
        tip.keyframe_insert("location", frame=f)
        box.keyframe_insert("location", frame=f)
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


UP = (1.0, 1.1, 1.2, 1.3, 1.4)  # the tip's last five heights
# the tip comes down onto the box (rests and held at frame 3), then lifts it
carry("carry_taken", (1.3, 1.1, 0.95, *UP), (0.85, 0.85, 0.85, *(z - 0.1 for z in UP)))
# the tip stops 3.5 cm above the box; it is taken a frame later, 1.5 cm from where the tip's move puts it
carry("carry_snap", (1.3, 1.1, 0.985, 0.995, 1.095, 1.195, 1.295, 1.395),
      (0.85, 0.85, 0.85, 0.875, 0.975, 1.075, 1.175, 1.275))
# the tip hovers 15 cm above the box, which leaps up into it
carry("carry_leap", (1.3, 1.2, 1.1, *(z + 0.15 for z in UP)), (0.85, 0.85, 0.85, *(z + 0.05 for z in UP)))
bpy.ops.wm.save_as_mainfile(filepath=str(out / "start.blend"))
'''

SURFACE = {
    "TEX": ("texture_influence", {"object": "Cube", "image": "GridImage", "input": "Base Color",
                                  "min_influence": 0.5, "uv_map": "UVMap"}),
}
SOLID = {
    "SOLID": ("solid_parts", {"objects": ["Cube"], "min_faces": 4, "min_volume": 0.0002, "min_extent": 0.02,
                              "max_shells": 1, "frame": 1}),
}
CARRY = {
    "CARRY": ("supported_throughout", {"object": "Box", "supports": ["Table"], "carrier": "Tip",
                                       "anchor": "top_center", "rest_tolerance": 0.01, "carrier_tolerance": 0.03,
                                       "max_step": 0.25, "slip_tolerance": 0.002, "snap_tolerance": 0.03,
                                       "frame_start": 1, "frame_end": 8, "frame_step": 1}),
}
EXPECTED = {
    "uvmap": (SURFACE, {}),
    "uvmap_instancer": (SURFACE, {"TEX": "From Instancer"}),
    "texcoord_instancer": (SURFACE, {"TEX": "From Instancer"}),
    "subsurf_plain": (SOLID, {}),
    "subsurf_adaptive": (SOLID, {"SOLID": "adaptive subdivision"}),
    "carry_taken": (CARRY, {}),
    "carry_snap": (CARRY, {}),
    "carry_leap": (CARRY, {"CARRY": "jumped into or out of the grip"}),
}


CASE_SETS = {"surface": SURFACE, "solid": SOLID, "carry": CARRY}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam11")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    tasks = {name: write_rule_task(tmp / name, cases, f"redteam11-{name}", start_mode="from_scratch")
             for name, cases in CASE_SETS.items()}
    return {"tmp": tmp, "tasks": tasks}


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_what_only_the_renderer_does_is_refused(scenes, delivery):
    cases, refused = EXPECTED[delivery]
    task, rubric = scenes["tasks"][next(n for n, c in CASE_SETS.items() if c is cases)]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task, rubric,
                                   scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, refused, delivery)


def test_the_new_operators_are_listed():
    assert {"adaptive_subdivision", "uv_from_instancer"} <= set(OPERATOR_NAMES)
