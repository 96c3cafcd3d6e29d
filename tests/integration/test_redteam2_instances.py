"""Red team 2, instances: geometry a render draws as instances is measured (verifiers/probe_core.py
``drawn_instances``, ``Probe.mesh_arrays`` / ``aabb``; the ``others_drawn`` primitive of
verifiers/probes_geometry.py) -- in real Blender.

One scene holds a plain part, a part whose Geometry Nodes join it with an instanced copy moved
2 m along X, a part joined with a mirrored instance of itself (faces must still face out), an
Empty instancing an unlinked collection (a crate far outside the region), a vertex instancer
whose hidden child is a box, and an Empty instancing a small box inside the region; the probe
grades one case per criterion.  The instancing mutation operators are applied to a small
delivery and must add geometry the depsgraph draws as instances."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.probe_cases import probe_local, write_rule_task
from tests.bpy_forks import run_bpy_script


pytestmark = pytest.mark.blender

ROOT = Path(__file__).resolve().parents[2]
VERIFIERS = ROOT / "verifiers"

SCENE = '''
import sys
import bpy
out = sys.argv[1]
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o)
scene = bpy.context.scene
FACES = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]


def box(name, lo, hi, link=True):
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0),
                      (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)], [], FACES)
    o = bpy.data.objects.new(name, mesh)
    if link:
        scene.collection.objects.link(o)
    return o


def instance_copy(obj, translation, scale=(1.0, 1.0, 1.0)):
    """A Geometry Nodes modifier joining ``obj`` with an instance of itself whose instance
    transform moves and scales it (a negative scale mirrors the instance)."""
    tree = bpy.data.node_groups.new("Copy." + obj.name, "GeometryNodeTree")
    tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    gin, gout = tree.nodes.new("NodeGroupInput"), tree.nodes.new("NodeGroupOutput")
    move = tree.nodes.new("GeometryNodeTransform")
    move.inputs["Translation"].default_value = translation
    move.inputs["Scale"].default_value = scale
    inst = tree.nodes.new("GeometryNodeGeometryToInstance")
    join = tree.nodes.new("GeometryNodeJoinGeometry")
    tree.links.new(gin.outputs[0], inst.inputs["Geometry"])
    tree.links.new(inst.outputs["Instances"], move.inputs["Geometry"])
    tree.links.new(gin.outputs[0], join.inputs["Geometry"])
    tree.links.new(move.outputs["Geometry"], join.inputs["Geometry"])
    tree.links.new(join.outputs["Geometry"], gout.inputs[0])
    obj.modifiers.new("Copy", "NODES").node_group = tree


def collection_instance(name, contents):
    coll = bpy.data.collections.new(name + ".Coll")  # never linked to the scene
    for o in contents:
        coll.objects.link(o)
    holder = bpy.data.objects.new(name, None)
    holder.instance_type, holder.instance_collection = "COLLECTION", coll
    scene.collection.objects.link(holder)
    return holder


box("Part", (0, 0, 0), (1, 1, 1))
instance_copy(box("Part.GN", (0, 3, 0), (1, 4, 1)), (2.0, 0.0, 0.0))
instance_copy(box("Part.Mirrored", (0.5, 6, 0), (1.5, 7, 1)), (0.0, 0.0, 0.0), (-1.0, 1.0, 1.0))
collection_instance("Crate.Empty", [box("Crate", (-5, -5, -1), (5, 5, 3), link=False)])
collection_instance("Small.Empty", [box("Small", (0.2, 0.2, 0.2), (0.4, 0.4, 0.4), link=False)])
verts = bpy.data.meshes.new("Helper.Verts")
verts.from_pydata([(0.0, 0.0, 0.0)], [], [])
helper = bpy.data.objects.new("Helper.Verts", verts)
helper.instance_type = "VERTS"
helper.show_instancer_for_render = helper.show_instancer_for_viewport = False
scene.collection.objects.link(helper)
box("Child", (-3, -3, 0), (3, 3, 2)).parent = helper
bpy.ops.wm.save_as_mainfile(filepath=out)
'''

PARTS = ["Part", "Part.GN", "Part.Mirrored"]
REGION = {"min": [-0.5, -0.5, -0.5], "max": [8.0, 8.0, 2.0]}
SOLID = {"min_faces": 4, "min_volume": 0.5, "min_extent": 0.5, "max_loose_fraction": 0.0, "min_fill": 0.9,
         "max_holes": 0}
CASES = [  # (method, params, expected score)
    # a part without instances is measured as before
    ("dimensions", {"object": "Part", "expected": [1, 1, 1], "tolerance": 0.001}, 1.0),
    ("solid_parts", {"object": "Part", **SOLID, "max_shells": 1}, 1.0),
    # the Geometry Nodes instance is part of the part: 3 m wide, two shells 2 m apart
    ("dimensions", {"object": "Part.GN", "expected": [1, 1, 1], "tolerance": 0.01}, 0.0),
    ("dimensions", {"object": "Part.GN", "expected": [3, 1, 1], "tolerance": 0.001}, 1.0),
    ("solid_parts", {"object": "Part.GN", **SOLID, "max_shells": 1}, 0.0),
    ("mesh_islands", {"object": "Part.GN", "count": 2, "pitch": 2.0, "axis": "X"}, 1.0),
    ("aabb_within", {"regions": {"Part.GN": {"min": [-0.1, 2.9, -0.1], "max": [1.1, 4.1, 1.1]}}}, 0.0),
    # a mirrored instance: its faces turned to face out, so both shells are closed solids
    ("solid_parts", {"object": "Part.Mirrored", **SOLID, "max_shells": 2}, 1.0),
    ("dimensions", {"object": "Part.Mirrored", "expected": [3, 1, 1], "tolerance": 0.001}, 1.0),
    # others_drawn: an Empty or a vertex instancer is judged by what it draws
    ("others_drawn", {"expected": [*PARTS, "Crate.Empty", "Helper.Verts"], "others_within": REGION}, 1.0),
    ("others_drawn", {"expected": [*PARTS, "Helper.Verts"], "others_within": REGION}, 0.0),
    ("others_drawn", {"expected": [*PARTS, "Crate.Empty"], "others_within": REGION}, 0.0),
    ("others_drawn", {"expected": [*PARTS, "Crate.Empty", "Helper.Verts", "Small.Empty"]}, 1.0),
    ("others_drawn", {"expected": [*PARTS, "Crate.Empty", "Helper.Verts"]}, 0.0),  # nothing else may be drawn
    ("others_drawn", {"expected": ["Crate.Empty", "Helper.Verts", "Small.Empty"]}, 0.0),  # the parts are others
]


@pytest.fixture(scope="module")
def scene_blend(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("instances")
    script, blend = tmp / "scene.py", tmp / "instances.blend"
    script.write_text(SCENE)
    proc = run_bpy_script(str(script), str(blend))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return blend


@pytest.fixture(scope="module")
def graded(scene_blend) -> dict:
    tmp, blend = scene_blend.parent, scene_blend
    write_rule_task(tmp, {f"I{i:02d}": (m, p) for i, (m, p, _) in enumerate(CASES)}, "redteam2-instances")
    report = probe_local(blend, tmp / "task.json", tmp / "rubric.json", tmp / "report.json")
    return {c["id"]: c for c in report["criteria"]}


@pytest.mark.parametrize(("index", "method", "params", "want"),
                         [(i, m, p, w) for i, (m, p, w) in enumerate(CASES)],
                         ids=[f"I{i:02d}-{m}" for i, (m, _, _) in enumerate(CASES)])
def test_case_scores(graded, index, method, params, want):
    got = graded[f"I{index:02d}"]
    assert got["score"] == pytest.approx(want, abs=1e-6), got


def test_others_drawn_names_the_instancer(graded):
    crate = graded["I10"]
    assert crate["evidence"]["outside"] == ["Crate.Empty"]
    assert crate["measured"]["boxes"]["Crate.Empty"] == {"min": [-5.0, -5.0, -1.0], "max": [5.0, 5.0, 3.0]}
    assert graded["I11"]["evidence"]["outside"] == ["Helper.Verts"]
    assert graded["I13"]["evidence"]["outside"] == ["Small.Empty"]


OPERATORS = ("instanced_extra_geometry", "dupliverts_child", "gn_instance_on_part")

APPLY = '''
import json, sys
import bpy
verifiers, out = sys.argv[-2], sys.argv[-1]
sys.path.insert(0, verifiers)
import mutations
from probe_core import drawn_instances
FACES = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]


def fresh():
    bpy.ops.wm.read_homefile(use_empty=True)
    mesh = bpy.data.meshes.new("Box")
    mesh.from_pydata([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)], [], FACES)
    bpy.context.scene.collection.objects.link(bpy.data.objects.new("Box", mesh))


rubric = {"criteria": [{"id": "C1", "method": "dimensions", "params": {"object": "Box"}}]}
result = {}
for name in json.loads(sys.argv[-3]):
    fresh()
    ctx = mutations.Context.of({"start_mode": "from_scratch"}, rubric, None)
    why = mutations.OPERATORS[name].applicable(ctx)
    mutations.OPERATORS[name].apply(ctx)
    dg = bpy.context.evaluated_depsgraph_get()
    drawn = drawn_instances(dg)
    result[name] = {"why": why, "instancers": sorted(drawn),
                    "boxes": {k: [p["co"].min(axis=0).tolist() + p["co"].max(axis=0).tolist() for p in v]
                              for k, v in drawn.items()}}
open(out, "w").write(json.dumps(result))
'''


@pytest.fixture(scope="module")
def mutated(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("instance_ops")
    (tmp / "apply.py").write_text(APPLY)
    proc = run_bpy_script(str(tmp / "apply.py"), json.dumps(OPERATORS), str(VERIFIERS),
                           str(tmp / "out.json"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads((tmp / "out.json").read_text())


def test_instancing_operators_draw_instances(mutated):
    assert all(mutated[n]["why"] is None for n in OPERATORS), mutated
    assert mutated["instanced_extra_geometry"]["instancers"] == ["Instancer.Collection"]
    assert mutated["dupliverts_child"]["instancers"] == ["Instancer.Verts"]
    assert mutated["gn_instance_on_part"]["instancers"] == ["Box"]
    # the instanced copy is 1.5x the box, moved by its width: from x = 1 to x = 2.5
    (box,) = mutated["gn_instance_on_part"]["boxes"]["Box"]
    assert box == pytest.approx([1.0, 0.0, 0.0, 2.5, 1.5, 1.5])
    # the enclosing boxes are larger than the part on every side
    for name in ("instanced_extra_geometry", "dupliverts_child"):
        (lo_hi,) = next(iter(mutated[name]["boxes"].values()))
        assert all(v < 0.0 for v in lo_hi[:3]) and all(v > 1.0 for v in lo_hi[3:])


WHOLE = '''
import json, sys
import bpy
blend, verifiers, out = sys.argv[-3], sys.argv[-2], sys.argv[-1]
sys.path.insert(0, verifiers)
bpy.ops.wm.open_mainfile(filepath=blend, load_ui=False)
from probe_core import Probe
from probes_solid import solid_of
probe = Probe(bpy.context.scene)
solid = solid_of(probe, bpy.data.objects["Part.Mirrored"], 1)
open(out, "w").write(json.dumps({"encloses": solid.encloses, "volume": solid.volume}))
'''


def test_a_mirrored_instance_faces_out_in_the_whole_part(scene_blend, tmp_path):
    """The part and its mirrored instance make one solid of 2 m^3 (the instance's loops are
    reversed to face out), not a 0-volume sheet whose windings cancel."""
    blend = scene_blend
    (tmp_path / "whole.py").write_text(WHOLE)
    proc = run_bpy_script(str(tmp_path / "whole.py"), str(blend), str(VERIFIERS),
                           str(tmp_path / "out.json"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    whole = json.loads((tmp_path / "out.json").read_text())
    assert whole["encloses"] and whole["volume"] == pytest.approx(2.0, rel=1e-6)
