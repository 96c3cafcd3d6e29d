"""Red team 3, geometry: what a render draws from a Background Set scene, hair strands no measure
can read, a box left on an edge, one part thinned while the others carry a pooled voxel IoU, and
shading normals turned inward (verifiers/probe_core.py ``drawn_instances`` /
``unmeasured_geometry`` / ``contact_share``; ``others_drawn``, ``normals_follow_faces``,
``solid_parts``, ``shape_match`` ``volumes``, ``rests_on_face``) -- in real Blender.

Two files of the same set: "clean" (a part, a table with a box flat on it and a box tipped onto
an edge, a post and a thin stick) and "gamed" (the same, plus a Background Set scene holding a
crate around everything, a hair particle system on the part and custom normals turned inward on
the flat box).  The new mutation operators are applied to a small delivery."""

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
import json, math, sys
import bpy
verifiers, variant, out = sys.argv[-3], sys.argv[-2], sys.argv[-1]
sys.path.insert(0, verifiers)
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o)
scene = bpy.context.scene
FACES = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]


def box(name, lo, hi, where=None):
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0),
                      (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)], [], FACES)
    o = bpy.data.objects.new(name, mesh)
    (where or scene).collection.objects.link(o)
    return o


box("Part", (0, 0, 0), (1, 1, 1))
box("Table", (3, 0, 0), (5, 2, 1))
box("Flat", (3.2, 0.2, 1), (3.6, 0.6, 1.4))
tipped = box("Tipped", (-0.2, -0.2, 0), (0.2, 0.2, 0.4))
tipped.rotation_euler = (math.radians(35), 0, 0)
tipped.location = (4.5, 1.5, 1.0 + 0.2 * math.sin(math.radians(35)))
box("Post", (6, 0, 0), (6.4, 0.4, 2))
box("Stick", (8, 0, 0), (8.1, 0.1, 2))
if variant == "gamed":
    backdrop = bpy.data.scenes.new("Backdrop")
    box("Crate", (-2, -2, -1), (10, 4, 4), backdrop)
    scene.background_set = backdrop
    mod = bpy.data.objects["Part"].modifiers.new("Fur", "PARTICLE_SYSTEM")
    s = mod.particle_system.settings
    s.type, s.count, s.hair_length, s.render_type = "HAIR", 200, 0.5, "PATH"
    flat = bpy.data.objects["Flat"].data
    flat.normals_split_custom_set([tuple(-c for c in p.normal) for p in flat.polygons for _ in p.loop_indices])
bpy.context.view_layer.update()
from probe_core import Probe
from probes_solid import voxel_signature
grid = {"min": [5.9, -0.1, -0.1], "max": [8.3, 0.5, 2.1], "size": [48, 12, 44]}
objs = [bpy.data.objects["Post"], bpy.data.objects["Stick"]]
grid["occupied"] = voxel_signature(Probe(scene), objs, grid["min"], grid["max"], grid["size"], 1)
open(out + ".grid.json", "w").write(json.dumps(grid))
bpy.ops.wm.save_as_mainfile(filepath=out)
'''

ALL = ["Part", "Table", "Flat", "Tipped", "Post", "Stick"]
REGION = {"min": [-1, -1, -1], "max": [9, 3, 3]}


def cases(grid: dict) -> list[tuple[str, dict, float, float]]:
    """(method, params, score on the clean file, score on the gamed one)."""
    return [
        # the background set's crate is drawn: credited to "<background set: Backdrop>"
        ("others_drawn", {"expected": ALL, "others_within": REGION}, 1.0, 0.0),
        ("others_drawn", {"expected": ["Table", "Flat", "Tipped", "Post", "Stick"],
                          "others_within": {"min": [-1, -1, -1], "max": [2, 2, 2]}}, 1.0, 0.0),
        # hair strands on the part: solid_parts names it
        ("solid_parts", {"object": "Part", "min_faces": 6}, 1.0, 0.0),
        ("solid_parts", {"object": "Table", "min_faces": 6}, 1.0, 1.0),
        # a box on its face rests, one tipped onto an edge does not (its AABB bottom is on the top)
        ("rests_on_face", {"object": "Flat", "support": "Table", "frame": 1, "tolerance": 0.01}, 1.0, 1.0),
        ("rests_on_face", {"object": "Tipped", "support": "Table", "frame": 1, "tolerance": 0.01}, 0.0, 0.0),
        ("rests_on_face", {"object": "Tipped", "support": "Table", "frame": 1, "tolerance": 0.01,
                           "min_contact": 0.0}, 1.0, 1.0),
        # pooled voxels hide a thin part: each object's own volume is judged
        ("shape_match", {"objects": ["Post", "Stick"], "grid": grid, "min_iou": 0.95}, 1.0, 1.0),
        ("shape_match", {"objects": ["Post", "Stick"], "grid": grid, "min_iou": 0.95,
                         "volumes": {"Post": [0.30, 0.34], "Stick": [0.019, 0.021]}}, 1.0, 1.0),
        ("shape_match", {"objects": ["Post", "Stick"], "grid": grid, "min_iou": 0.95,
                         "volumes": {"Stick": [0.30, 0.34]}}, 0.0, 0.0),
        # shading normals turned inward
        ("normals_follow_faces", {"objects": ["Flat", "Table"]}, 1.0, 0.5),
    ]


def _build(tmp: Path, variant: str) -> tuple[Path, dict]:
    script, blend = tmp / "scene.py", tmp / f"{variant}.blend"
    script.write_text(SCENE)
    proc = run_bpy_script(str(script), str(VERIFIERS), variant, str(blend))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return blend, json.loads(Path(str(blend) + ".grid.json").read_text())


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    out = {}
    for variant in ("clean", "gamed"):
        tmp = tmp_path_factory.mktemp(variant)
        blend, grid = _build(tmp, variant)
        write_rule_task(tmp, {f"G{i:02d}": (m, p) for i, (m, p, _, _) in enumerate(cases(grid))}, "redteam3-geometry")
        report = probe_local(blend, tmp / "task.json", tmp / "rubric.json", tmp / "report.json")
        out[variant] = {c["id"]: c for c in report["criteria"]}
    return out


@pytest.mark.parametrize("index", range(len(cases({}))), ids=[f"G{i:02d}-{c[0]}" for i, c in enumerate(cases({}))])
def test_case_scores(graded, index):
    _, _, clean, gamed = cases({})[index]
    assert graded["clean"][f"G{index:02d}"]["score"] == pytest.approx(clean, abs=1e-6), graded["clean"][f"G{index:02d}"]
    assert graded["gamed"][f"G{index:02d}"]["score"] == pytest.approx(gamed, abs=1e-6), graded["gamed"][f"G{index:02d}"]


def test_details_name_the_drawer(graded):
    drawn = graded["gamed"]["G00"]
    assert "<background set: Backdrop>" in drawn["evidence"]["outside"]
    assert "Part" in drawn["evidence"]["unmeasured"]
    assert "cannot measure" in graded["gamed"]["G02"]["detail"]


APPLY = '''
import json, sys
import bpy
verifiers, out = sys.argv[-2], sys.argv[-1]
sys.path.insert(0, verifiers)
import mutations
from probe_core import drawn_instances, unmeasured_geometry
FACES = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
rubric = {"criteria": [{"id": "C1", "method": "dimensions", "params": {"object": "Box"}}]}
result = {}
for name in ("background_set_occluder", "hair_on_parts"):
    bpy.ops.wm.read_homefile(use_empty=True)
    mesh = bpy.data.meshes.new("Box")
    mesh.from_pydata([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)], [], FACES)
    bpy.context.scene.collection.objects.link(bpy.data.objects.new("Box", mesh))
    ctx = mutations.Context.of({"start_mode": "from_scratch"}, rubric, None)
    why = mutations.OPERATORS[name].applicable(ctx)
    mutations.OPERATORS[name].apply(ctx)
    drawn = drawn_instances(bpy.context.evaluated_depsgraph_get())
    result[name] = {"why": why, "drawers": sorted(drawn), "unmeasured": unmeasured_geometry(bpy.data.objects["Box"])}
open(out, "w").write(json.dumps(result))
'''


def test_operators_add_what_the_grader_now_sees(tmp_path):
    (tmp_path / "apply.py").write_text(APPLY)
    proc = run_bpy_script(str(tmp_path / "apply.py"), str(VERIFIERS), str(tmp_path / "out.json"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads((tmp_path / "out.json").read_text())
    assert got["background_set_occluder"]["why"] is None
    assert got["background_set_occluder"]["drawers"] == ["<background set: Backdrop>"]
    assert got["hair_on_parts"]["why"] is None
    assert "strands" in got["hair_on_parts"]["unmeasured"]
