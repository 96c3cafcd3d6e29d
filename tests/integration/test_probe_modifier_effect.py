"""``modifier_effect`` (verifiers/probes_objects.py) in real Blender: a modifier is judged by what it
does to the evaluated mesh, not by its settings.  One scene holds a picket Array, a post Mirror and
a few off cases; a copy of it goes through the ``modifiers_neutralised`` gaming operator (the
modified result baked into the mesh, the modifier kept with its settings but doing nothing).  Both
are graded by the same rubric: the settings and the part count still pass on the neutralised copy,
``modifier_effect`` does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.probe_cases import probe_local, write_rule_task
from tests.bpy_forks import run_bpy_script


pytestmark = pytest.mark.blender

ROOT = Path(__file__).resolve().parents[2]

SCENE = '''
import sys
import bpy
good, neutralised, verifiers = sys.argv[1], sys.argv[2], sys.argv[3]
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o)
scene = bpy.context.scene
FACES = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]


def box(name, lo, hi):
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    verts = [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0),
             (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], FACES)
    mesh.update()
    o = bpy.data.objects.new(name, mesh)
    scene.collection.objects.link(o)
    return o


def array(obj, count, pitch, name="Array"):
    m = obj.modifiers.new(name, "ARRAY")
    m.fit_type, m.count = "FIXED_COUNT", count
    m.use_relative_offset, m.use_constant_offset = False, True
    m.constant_offset_displace = (pitch, 0.0, 0.0)
    return m


array(box("Pickets", (-0.76, -0.07, 0.05), (-0.68, -0.05, 1.0)), 10, 0.16)   # ten pickets
box("Posts", (-0.9, -0.05, 0.0), (-0.8, 0.05, 1.1)).modifiers.new("Mirror", "MIRROR").use_axis = (True, False, False)
array(box("Pair", (2.0, 0.0, 0.0), (2.1, 0.1, 0.1)), 2, 0.2)                 # an Array of 2
array(box("Off", (3.0, 0.0, 0.0), (3.1, 0.1, 0.1)), 10, 0.2).show_render = False  # not in renders
pinned = array(box("Pinned", (4.0, 0.0, 0.0), (4.1, 0.1, 0.1)), 10, 0.2)     # a driver holds count at 10
fc = pinned.driver_add("count")
fc.driver.type, fc.driver.expression = "SCRIPTED", "10"
scene.frame_set(1)
bpy.ops.wm.save_as_mainfile(filepath=good)

sys.path.insert(0, verifiers)
import mutations  # noqa: E402

ctx = mutations.Context.of({"start_mode": "from_scratch"}, {"criteria": []}, None)
assert mutations.OPERATORS["modifiers_neutralised"].applicable(ctx) is None
mutations.OPERATORS["modifiers_neutralised"].apply(ctx)
bpy.context.view_layer.update()
bpy.ops.wm.save_as_mainfile(filepath=neutralised)
'''

ARRAY_10 = {"object": "Pickets", "type": "ARRAY", "min_vertex_ratio": 9.5, "min_islands_added": 9}
COUNT_PLUS_2 = {"property": "count", "by": 2, "islands": 2}  # the configurator lengthens the panel
MIRROR_2 = {"object": "Posts", "type": "MIRROR", "min_vertex_ratio": 1.9, "min_islands_added": 1}
# (method, params, score on the good scene, score on the neutralised one)
CASES = [
    ("modifier_effect", ARRAY_10, 1.0, 0.0),
    ("modifier_effect", {**MIRROR_2, "name": "Mirror", "frame": 1}, 1.0, 0.0),
    ("modifier_effect", {"object": "Pair", "type": "ARRAY", "min_vertex_ratio": 9.5, "min_islands_added": 1},
     0.5, 0.0),
    ("modifier_effect", {"object": "Off", "type": "ARRAY", "min_islands_added": 1}, 0.0, 0.0),
    ("modifier_effect", {**ARRAY_10, "name": "Not.There"}, 0.0, 0.0),
    ("modifier_effect", {"object": "Pickets", "type": "MIRROR", "min_vertex_ratio": 1.5}, 0.0, 0.0),
    # parametric: count + 2 gives two more pickets; a driver pinning the count does not
    ("modifier_effect", {**ARRAY_10, "vary": COUNT_PLUS_2}, 1.0, 0.0),
    ("modifier_effect", {**ARRAY_10, "object": "Pinned", "vary": COUNT_PLUS_2}, 2 / 3, 0.0),
    # after the effect was measured: the flags are back and the evaluated mesh is as delivered
    ("modifier_settings", {"object": "Pickets", "type": "ARRAY", "settings": {"count": 10}}, 1.0, 1.0),
    ("mesh_islands", {"object": "Pickets", "count": 10, "pitch": 0.16, "tolerance": 0.002}, 1.0, 1.0),
    ("mesh_islands", {"object": "Posts", "count": 2, "pitch": 1.7, "tolerance": 0.005}, 1.0, 1.0),
]


def _grade(tmp: Path, blend: Path, out: str) -> dict:
    write_rule_task(tmp, {f"M{i:02d}": (m, p) for i, (m, p, _, _) in enumerate(CASES)}, "probe-modifier-effect")
    report = probe_local(blend, tmp / "task.json", tmp / "rubric.json", tmp / out)
    return {c["id"]: c for c in report["criteria"]}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, dict]:
    tmp = tmp_path_factory.mktemp("modifier_effect")
    script, good, neutralised = tmp / "scene.py", tmp / "good.blend", tmp / "neutralised.blend"
    script.write_text(SCENE)
    proc = run_bpy_script(str(script), str(good), str(neutralised), str(ROOT / "verifiers"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {"good": _grade(tmp, good, "good.json"), "neutralised": _grade(tmp, neutralised, "neutralised.json")}


@pytest.mark.parametrize("scene", ["good", "neutralised"])
@pytest.mark.parametrize(("index", "method", "params", "want"),
                         [(i, m, p, (g, n)) for i, (m, p, g, n) in enumerate(CASES)],
                         ids=[f"M{i:02d}-{m}" for i, (m, _, _, _) in enumerate(CASES)])
def test_case_scores(graded, scene, index, method, params, want):
    entry = graded[scene][f"M{index:02d}"]
    score = want[0] if scene == "good" else want[1]
    assert entry["method"] == method
    assert entry["score"] == pytest.approx(score, abs=1e-6), entry
    assert entry["passed"] is (score == 1.0), entry


def test_it_has_a_passing_and_a_failing_case():
    scores = [s for m, _, g, n in CASES if m == "modifier_effect" for s in (g, n)]
    assert 1.0 in scores and min(scores) < 1.0


def test_the_measures_name_the_effect(graded):
    good, neutralised = graded["good"], graded["neutralised"]
    pickets = good["M00"]["measured"]
    assert (pickets["vertices_with"], pickets["vertices_without"], pickets["vertex_ratio"]) == (80, 8, 10.0)
    assert (pickets["islands_with"], pickets["islands_without"], pickets["islands_added"]) == (10, 1, 9)
    posts = good["M01"]["measured"]
    assert (posts["vertex_ratio"], posts["islands_added"]) == (2.0, 1)
    assert good["M02"]["evidence"]["failed"] == ["min_vertex_ratio"]
    assert "no live ARRAY modifier" in good["M03"]["detail"]
    # the baked pickets are all there, but the kept Array adds nothing
    baked = neutralised["M00"]["measured"]
    assert baked["vertices_without"] == 80 and baked["vertex_ratio"] == pytest.approx(1.0)
    assert baked["islands_added"] == 0
    assert neutralised["M00"]["evidence"]["failed"] == ["min_vertex_ratio", "min_islands_added"]
    assert neutralised["M01"]["measured"]["vertex_ratio"] == pytest.approx(1.0)
