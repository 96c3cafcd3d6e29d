"""Red team 5, fence: where each part sits and how big each piece is, in real Blender.

The fence-array grader measured the whole row's box (``dimensions``) and the pitch, never a
single piece's size nor where a part sits: 0.42 m boards passed as 0.07 m rails, and the picket
row raised 10 cm, turned to the back (+Y) or shifted 4 cm off centre scored success.
``mesh_islands`` now takes ``piece_size`` {expected, tolerance}: every visible shell's own world
AABB measures ``expected`` (C05 posts, C08 rails, C17 pickets); ``aabb_within`` with a region per
part from the spec's Dimensions (C18) pins where each part lies.

Probe cases first (a pass and a fail for each measure), then the seed's own criteria on the
reference and the four red-team deliveries (seeds/fence-array/draft/calibration/gaming/b_*.py).
Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code or the seed's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from tests.probe_cases import probe_local, run_bpy, write_rule_task
from verifiers.probe_catalogue import builtin_methods

pytestmark = pytest.mark.blender

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "seeds" / "fence-array" / "draft"
GAMING = ("b_rails_are_boards", "b_pickets_raised", "b_pickets_on_back", "b_pickets_off_centre")

MAKE = r'''
import sys
from pathlib import Path

import bpy
import bmesh  # after bpy: the bpy module provides it
from mathutils import Matrix

out = Path(sys.argv[-1])
bpy.ops.wm.read_factory_settings(use_empty=True)


def boxes(name, parts):
    """One object of axis-aligned boxes [(size, centre)], each object 1 m further along +Y (no
    object's piece may sit inside another's: a hidden shell is no piece)."""
    bm = bmesh.new()
    for size, centre in parts:
        bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation(centre) @ Matrix.Diagonal((*size, 1.0)))
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new(name, mesh)
    obj.location.y = len(bpy.data.objects) - 1.0
    bpy.context.scene.collection.objects.link(obj)
    return obj


boxes("Rails", [((1.6, 0.03, 0.07), (0, -0.035, z)) for z in (0.25, 0.8)])
boxes("Boards", [((1.6, 0.03, 0.42), (0, -0.035, z)) for z in (0.27, 0.75)])
# one rail right, the other a board: every piece must measure
boxes("RailAndBoard", [((1.6, 0.03, 0.07), (0, -0.035, 0.25)), ((1.6, 0.03, 0.42), (0, -0.035, 0.75))])
# a bevelled post keeps its bounding box: a legitimate softening passes
post = boxes("BevelledPost", [((0.1, 0.1, 1.1), (-0.85, 0, 0.55))])
bevel = post.modifiers.new("Bevel", "BEVEL")
bevel.width, bevel.segments = 0.004, 2
# a post with a speck of loose geometry far away: loose vertices are no piece and widen none
speck = boxes("PostWithLooseVertex", [((0.1, 0.1, 1.1), (-0.85, 0, 0.55))])
speck.data.vertices.add(1)
speck.data.vertices[-1].co = (0.0, 0.0, 3.0)
bpy.ops.wm.save_as_mainfile(filepath=str(out / "pieces.blend"))
'''

RAIL = {"expected": [1.6, 0.03, 0.07], "tolerance": 0.005}
POST = {"expected": [0.1, 0.1, 1.1], "tolerance": 0.005}

# criterion -> (method, params, passes)
CASES = {
    "RAILS": ("mesh_islands", {"object": "Rails", "count": 2, "piece_size": RAIL}, True),
    "BOARDS": ("mesh_islands", {"object": "Boards", "count": 2, "piece_size": RAIL}, False),
    "ONE_BOARD": ("mesh_islands", {"object": "RailAndBoard", "count": 2, "piece_size": RAIL}, False),
    "BEVELLED": ("mesh_islands", {"object": "BevelledPost", "count": 1, "piece_size": POST}, True),
    "LOOSE_SPECK": ("mesh_islands", {"object": "PostWithLooseVertex", "count": 1, "piece_size": POST}, True),
    "NO_PIECE_SIZE": ("mesh_islands", {"object": "Boards", "count": 2}, True),  # without it: counts only
}


@pytest.fixture(scope="module")
def pieces(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam5-fence")
    script = tmp / "make.py"
    script.write_text(MAKE, encoding="utf-8")
    run_bpy(script, tmp)
    task, rubric = write_rule_task(tmp / "task", {cid: (m, p) for cid, (m, p, _) in CASES.items()},
                                   "redteam5-fence")
    report = probe_local(tmp / "pieces.blend", task, rubric, tmp / "report.json")
    return {c["id"]: c for c in report["criteria"]}


@pytest.mark.parametrize("cid", sorted(CASES))
def test_piece_size_case(pieces, cid):
    got = pieces[cid]
    assert got.get("error") is None, got
    assert got["passed"] is CASES[cid][2], got


def test_piece_size_reports_each_piece(pieces):
    boards = pieces["BOARDS"]
    assert boards["measured"]["Boards"]["piece_sizes"] == [[1.6, 0.03, 0.42], [1.6, 0.03, 0.42]]
    assert boards["measured"]["Boards"]["max_piece_size_error"] == pytest.approx(0.35)
    assert "a part's size off by 0.3500" in boards["detail"]
    assert pieces["ONE_BOARD"]["score"] == 0.0
    assert pieces["RAILS"]["measured"]["Rails"]["max_piece_size_error"] == pytest.approx(0.0, abs=1e-6)
    assert "piece_sizes" not in pieces["NO_PIECE_SIZE"]["measured"]["Boards"]


@pytest.mark.parametrize("piece_size, valid", [
    (RAIL, True),
    ({"expected": [1.6, 0.03], "tolerance": 0.005}, False),
    ({"expected": [1.6, 0.03, 0.07]}, False),
    ({"expected": [1.6, 0.03, 0.07], "tolerance": -0.005}, False),
    ({"expected": [1.6, 0.03, 0.07], "tolerance": 0.005, "axis": "X"}, False),
])
def test_piece_size_is_checked_on_admission(piece_size, valid):
    schema = builtin_methods()["mesh_islands"].schema()
    params = {"object": "Fence.Rails", "count": 2, "piece_size": piece_size}
    assert Draft202012Validator(schema).is_valid(params) is valid


# --- the seed's own criteria on the reference and the red team's deliveries -----------------------

BUILD = r'''
import runpy
import sys

import bpy

script, out = sys.argv[-2], sys.argv[-1]
bpy.ops.wm.read_factory_settings(use_empty=True)
runpy.run_path(script, run_name="__main__")
bpy.ops.wm.save_as_mainfile(filepath=out)
'''

# the criteria this fix added or tightened, and which delivery each must refuse
GRADED = ("C05", "C08", "C17", "C18")
REFUSED_BY = {"b_rails_are_boards": {"C08"}, "b_pickets_raised": {"C18"}, "b_pickets_on_back": {"C18"},
              "b_pickets_off_centre": {"C18"}}


def seed_cases() -> dict[str, tuple[str, dict]]:
    rubric = json.loads((SEED / "rubric.json").read_text(encoding="utf-8"))
    return {c["id"]: (c["method"], c["params"]) for c in rubric["criteria"] if c["id"] in GRADED}


@pytest.fixture(scope="module")
def deliveries(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam5-fence-seed")
    build = tmp / "build.py"
    build.write_text(BUILD, encoding="utf-8")
    task, rubric = write_rule_task(tmp / "task", seed_cases(), "redteam5-fence-seed")
    scripts = {"reference": SEED / "solution" / "solve.py",
               "pointed_relative_offset": SEED / "calibration" / "variants" / "pointed_relative_offset.py",
               **{name: SEED / "calibration" / "gaming" / f"{name}.py" for name in GAMING}}
    graded = {}
    for name, script in scripts.items():
        blend = tmp / f"{name}.blend"
        run_bpy(build, script, blend)
        report = probe_local(blend, task, rubric, tmp / f"{name}.json")
        graded[name] = {c["id"]: c for c in report["criteria"]}
    return graded


@pytest.mark.parametrize("name", ["reference", "pointed_relative_offset"])
def test_honest_deliveries_meet_the_new_criteria(deliveries, name):
    failing = {cid: c for cid, c in deliveries[name].items() if not c["passed"]}
    assert not failing, failing


@pytest.mark.parametrize("name", GAMING)
def test_red_team_delivery_refused(deliveries, name):
    failing = {cid for cid, c in deliveries[name].items() if not c["passed"]}
    assert failing == REFUSED_BY[name], deliveries[name]


def test_placement_names_the_misplaced_part(deliveries):
    assert deliveries["b_pickets_raised"]["C18"]["evidence"]["outside"] == ["Fence.Pickets"]
    assert deliveries["b_pickets_off_centre"]["C18"]["evidence"]["outside"] == ["Fence.Pickets"]
    assert set(deliveries["b_pickets_on_back"]["C18"]["evidence"]["outside"]) == {"Fence.Pickets", "Fence.Rails"}
    rails = deliveries["b_rails_are_boards"]["C08"]["measured"]["Fence.Rails"]
    assert rails["piece_sizes"] == [[1.6, 0.03, 0.42], [1.6, 0.03, 0.42]]
