"""The solid-geometry probes (verifiers/probes_solid.py, and the shell-based geometry probes of
verifiers/probes_geometry.py) in real Blender: one scene holding a small table and the usual
bounding-box fakes (loose corner vertices, a zero-thickness sheet, a tiny stand-in inside the
expected box, a leg that floats, a leg "on the floor" by one loose vertex) and the shell tricks
(a stub plus a shell hidden in the top, a top with a hole through it, a post cut to a puck with a
tiny shell keeping its box, a part buried in another, a foot hidden in a plinth, a sliver of UV
overlap between the old raster's samples, a comb of rods through the voxel centres), graded by
one probe run; every case's score is checked."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.probe_cases import probe_local, write_rule_task
from tests.bpy_forks import run_bpy_script


pytestmark = pytest.mark.blender

ROOT = Path(__file__).resolve().parents[2]

# Voxel grid around Leg.Good (x, y in [-0.425, -0.375], z in [0, 0.7]): no voxel centre on a face.
GRID_MIN, GRID_MAX, GRID_SIZE = [-0.5, -0.5, -0.05], [-0.3, -0.3, 0.8], [8, 8, 34]
# A coarse grid (10 cm voxels) around a 44 cm box (Ref.Box) and a comb of 1.2 cm rods through its centres.
COARSE_MIN, COARSE_MAX, COARSE_SIZE = [4.95, -0.05, -0.05], [5.45, 0.45, 0.45], [5, 5, 5]

# An empty scene and the shapes both scenes' scripts build: meshes, boxes, a top with a square
# hole through it.
SHAPES = '''
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o)
scene = bpy.context.scene
FACES = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]


def corners(lo, hi):
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    return [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0),
            (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]


def obj(name, verts, faces=()):
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], list(faces))
    mesh.update()
    o = bpy.data.objects.new(name, mesh)
    scene.collection.objects.link(o)
    return o


def box(name, lo, hi, loose=()):
    return obj(name, corners(lo, hi) + list(loose), FACES)


def holed(name, cx, cy, z0, z1, half, hole):
    ring = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
    verts = [(cx + sx * h, cy + sy * h, z) for h, z in ((half, z0), (half, z1), (hole, z0), (hole, z1))
             for sx, sy in ring]
    o0, o1, i0, i1 = (list(range(k, k + 4)) for k in (0, 4, 8, 12))
    faces = []
    for i in range(4):
        j = (i + 1) % 4
        faces += [(o1[i], o1[j], i1[j], i1[i]), (o0[i], i0[i], i0[j], o0[j]),
                  (o0[i], o0[j], o1[j], o1[i]), (i0[j], i0[i], i1[i], i1[j])]
    return obj(name, verts, faces)
'''

SCENE = '''
import json, sys
import bpy
out, verifiers, grid = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
#SHAPES#


def leg(name, cx, cy, z0, z1, loose=()):
    return box(name, (cx - 0.025, cy - 0.025, z0), (cx + 0.025, cy + 0.025, z1), loose)


box("Slab", (-0.5, -0.5, 0.7), (0.5, 0.5, 0.75))
leg("Leg.Good", -0.4, -0.4, 0.0, 0.7)                              # stands on the floor, holds the slab
leg("Leg.Float", 0.4, -0.4, 0.0, 0.65)                             # 5 cm short of the slab
hover = leg("Leg.Hover", -0.4, 0.4, 0.05, 0.7)                     # 5 cm above the floor at frame 1 ...
hover.keyframe_insert("location", frame=1)
hover.location.z = -0.05                                           # ... standing at frame 10
hover.keyframe_insert("location", frame=10)
leg("Leg.Vertex", 0.4, 0.4, 0.05, 0.7, loose=[(0.4, 0.4, 0.0)])    # "on the floor" by a loose vertex
mirror = leg("Leg.Mirror", 0.0, 0.0, 0.0, 0.7)                     # negative scale: winding mirrored
mirror.location, mirror.scale = (0.0, -0.4, 0.0), (-1.0, 1.0, 1.0)
leg("Leg.Through", 0.0, 0.4, 0.0, 0.72)                            # runs 2 cm into the slab
box("Dowel", (0.19, 0.19, 0.715), (0.21, 0.21, 0.735))             # wholly inside the slab
box("StandIn", (-0.41, -0.41, 0.34), (-0.39, -0.39, 0.36),         # a 2 cm cube + Leg.Good's corners
    loose=corners((-0.425, -0.425, 0.0), (-0.375, -0.375, 0.7)))
obj("Corners", corners((-0.025, -0.025, 0.0), (0.025, 0.025, 0.7)))  # 8 loose vertices, no faces
obj("Sheet", [(1.75, -0.25, 0), (2.25, -0.25, 0), (2.25, 0.25, 0), (1.75, 0.25, 0)], [(0, 1, 2, 3)])
panel = obj("Panel", [(1.75, -2.25, 0.1), (2.25, -2.25, 0.1), (2.25, -1.75, 0.1), (1.75, -1.75, 0.1)],
            [(0, 1, 2, 3)])
panel.modifiers.new("Thick", "SOLIDIFY").thickness = 0.02         # a sheet made solid by a modifier
leg("Sunk", 3.0, 0.0, -0.05, 0.65)                                 # 5 cm into the floor


def shells(name, boxes, loose=()):
    verts, faces = [], []
    for lo, hi in boxes:
        n = len(verts)
        verts += corners(lo, hi)
        faces += [tuple(i + n for i in f) for f in FACES]
    return obj(name, verts + list(loose), faces)


# a stub on the floor plus a shell hidden inside the slab (z 0.71..0.74): the old box spanned 0..0.74
shells("Leg.Stub", [((0.175, -0.225, 0.0), (0.225, -0.175, 0.05)), ((0.175, -0.225, 0.71), (0.225, -0.175, 0.74))])
# a post cut to a 5 cm puck plus a 1 cm cube keeping its 0.7 m box
shells("Post.Puck", [((-2.025, -0.025, 0.0), (-1.975, 0.025, 0.05)), ((-2.005, -0.005, 0.69), (-1.995, 0.005, 0.7))])
# a leg whose only foot is a shell hidden inside a plinth; the leg itself hangs 15 cm up
box("Plinth", (2.8, -1.2, -0.01), (3.2, -0.8, 0.1))
shells("Leg.Plinth", [((2.98, -1.02, 0.0), (3.02, -0.98, 0.02)), ((2.975, -1.025, 0.15), (3.025, -0.975, 0.7))])
# two solid boxes and a loose vertex: two parts
shells("Islands", [((-3.0, 0.0, 0.0), (-2.9, 0.1, 0.1)), ((-2.5, 0.0, 0.0), (-2.4, 0.1, 0.1))], loose=[(-2.0, 0.05, 0.05)])


holed("Top.Holed", 4.5, -2.0, 0.7, 0.74, 0.5, 0.15)                 # a 1 m top with a 30 cm hole through it
box("Top.Solid", (4.0, -3.6, 0.7), (5.0, -2.6, 0.74))

# UVs: two quads side by side in UV space, exactly meeting (UV.Good) or overlapping by a 3 mm sliver
# that no sample of the old 256-pixel raster hit (UV.Sliver)
for name, split in (("UV.Good", (0.5, 0.5)), ("UV.Sliver", (0.5015, 0.4985))):
    uvo = obj(name, [(6, 0, 0), (6.5, 0, 0), (6.5, 0.5, 0), (6, 0.5, 0), (7, 0, 0), (7.5, 0, 0), (7.5, 0.5, 0), (7, 0.5, 0)],
              [(0, 1, 2, 3), (4, 5, 6, 7)])
    layer = uvo.data.uv_layers.new(name="UVMap")
    quads = [[(0, 0), (split[0], 0), (split[0], 0.5), (0, 0.5)], [(split[1], 0), (1, 0), (1, 0.5), (split[1], 0.5)]]
    for poly, quad in zip(uvo.data.polygons, quads):
        for loop, uv in zip(poly.loop_indices, quad):
            layer.data[loop].uv = uv

# shape: a 44 cm box, and a comb of 1.2 cm rods along X through every centre of the 10 cm voxels
box("Ref.Box", (4.98, -0.02, -0.02), (5.42, 0.42, 0.42))
shells("Comb", [((4.98, y - 0.006, z - 0.006), (5.42, y + 0.006, z + 0.006))  # 1 m behind the box
                for y in (1.0, 1.1, 1.2, 1.3, 1.4) for z in (0.0, 0.1, 0.2, 0.3, 0.4)])
scene.frame_set(1)

sys.path.insert(0, verifiers)
from probe_core import Probe  # noqa: E402
from probes_solid import voxel_signature  # noqa: E402

probe = Probe(scene)
sig = voxel_signature(probe, [bpy.data.objects["Leg.Good"]], grid["min"], grid["max"], grid["size"], 1)
try:  # 10 cm voxels cannot see 1.2 cm rods: the signature is refused
    voxel_signature(probe, [bpy.data.objects["Comb"]], [4.95, 0.95, -0.05], [5.45, 1.45, 0.45], [5, 5, 5], 1)
    coarse = "accepted"
except ValueError as exc:
    coarse = str(exc)
bpy.ops.wm.save_as_mainfile(filepath=out)
with open(out + ".json", "w") as fh:
    json.dump({"signature": sig, "coarse": coarse}, fh)
'''.replace("#SHAPES#\n", SHAPES)


def box_signature(lo, hi, grid_min=GRID_MIN, grid_max=GRID_MAX, size=GRID_SIZE) -> str:
    """Occupied hex of an axis-aligned box on a grid, computed without Blender."""
    lo_g, hi_g, n = np.array(grid_min), np.array(grid_max), np.array(size)
    xs, ys, zs = (lo_g[i] + (np.arange(n[i]) + 0.5) * (hi_g[i] - lo_g[i]) / n[i] for i in range(3))
    z, y, x = np.meshgrid(zs, ys, xs, indexing="ij")  # (nz, ny, nx): x fastest when flattened
    occ = (x > lo[0]) & (x < hi[0]) & (y > lo[1]) & (y < hi[1]) & (z > lo[2]) & (z < hi[2])
    return np.packbits(occ.ravel().astype(np.uint8), bitorder="little").tobytes().hex()


LEG_SIGNATURE = box_signature((-0.425, -0.425, 0.0), (-0.375, -0.375, 0.7))  # 2 x 2 x 28 voxels
LEG_GRID = {"min": GRID_MIN, "max": GRID_MAX, "size": GRID_SIZE, "occupied": LEG_SIGNATURE}
# Leg.Hover as it stands at frame 10 (z in [0, 0.65]; 26 layers), on a grid around its x, y
HOVER_MIN, HOVER_MAX = [-0.5, 0.3, -0.05], [-0.3, 0.5, 0.8]
HOVER_GRID = {"min": HOVER_MIN, "max": HOVER_MAX, "size": GRID_SIZE,
              "occupied": box_signature((-0.425, 0.375, 0.0), (-0.375, 0.425, 0.65), HOVER_MIN, HOVER_MAX)}
SOLID = {"min_faces": 6, "min_volume": 1e-4, "min_extent": 0.01}
LEG_SHAPE = {"volume": [0.0016, 0.0019], "area": [0.13, 0.16], "fill": [0.9, 1.01]}  # from Leg.Good, +-~8 %
FAKES = ["Leg.Good", "Sheet", "Corners", "StandIn", "Leg.Vertex"]
BOX_GRID = {"min": COARSE_MIN, "max": COARSE_MAX, "size": COARSE_SIZE,
            "occupied": box_signature((4.98, -0.02, -0.02), (5.42, 0.42, 0.42), COARSE_MIN, COARSE_MAX, COARSE_SIZE)}
COMB_GRID = {**BOX_GRID, "min": [4.95, 0.95, -0.05], "max": [5.45, 1.45, 0.45]}  # the same box, 1 m behind
TOPS = {"min_fill": 0.95, "max_holes": 0, "min_volume": 0.01}

# (method, params, expected score)
CASES = [
    ("solid_parts", {"objects": ["Slab", "Leg.Good", "Leg.Mirror", "Panel"], **SOLID}, 1.0),
    # Sheet: no volume, flat; Corners: no faces; StandIn: tiny, half its vertices loose; Leg.Vertex: a loose vertex
    ("solid_parts", {"objects": FAKES, **SOLID}, 0.2),
    ("solid_parts", {"object": "Leg.Vertex", "max_loose_fraction": 0.2, "min_area": 0.1, "frame": 1}, 1.0),
    ("shape_measures", {"objects": ["Leg.Good", "Leg.Mirror", "Leg.Through"], **LEG_SHAPE}, 1.0),
    ("shape_measures", {"objects": ["Leg.Good", "StandIn", "Corners", "Sheet"], **LEG_SHAPE}, 0.25),
    ("shape_measures", {"object": "StandIn", "fill": [0.5, 1.01]}, 0.0),  # corners blow up its box
    ("parts_touch", {"object": "Slab", "others": ["Leg.Good", "Leg.Mirror", "Leg.Through"],
                     "tolerance": 0.001}, 1.0),
    # the rubric grades frames 1 and 10 (S12, S18): Leg.Hover meets the slab at frame 1 only
    ("parts_touch", {"object": "Slab", "others": ["Leg.Good", "Leg.Hover"], "tolerance": 0.001}, 0.5),
    # Leg.Float: 5 cm gap; Corners and StandIn reach the slab only with loose vertices
    ("parts_touch", {"object": "Slab", "others": ["Leg.Good", "Leg.Float", "Corners", "StandIn"],
                     "tolerance": 0.003}, 0.25),
    ("parts_touch", {"object": "Leg.Float", "others": ["Slab"], "tolerance": 0.06}, 1.0),
    ("ground_contact", {"objects": ["Leg.Good", "Leg.Float", "Leg.Mirror", "Leg.Through"]}, 1.0),
    ("ground_contact", {"objects": ["Leg.Good", "Leg.Hover", "Leg.Vertex", "Corners", "Sheet", "Sunk"]}, 1 / 6),
    ("ground_contact", {"object": "Leg.Hover", "frame": 10}, 0.0),  # on the floor at frame 10, not at 1
    ("ground_contact", {"objects": ["Slab", "Leg.Good"], "z": 0.7, "tolerance": 0.001, "min_area": 0.5}, 0.5),
    ("shape_match", {"object": "Leg.Good", "grid": LEG_GRID, "min_iou": 0.95}, 1.0),
    ("shape_match", {"objects": ["Leg.Good", "StandIn"], "grid": LEG_GRID, "min_iou": 0.95}, 1.0),
    ("shape_match", {"object": "StandIn", "grid": LEG_GRID, "min_iou": 0.5}, 0.0),
    ("shape_match", {"object": "Leg.Hover", "grid": HOVER_GRID, "min_iou": 0.95}, 0.0),  # frame 1: 5 cm up
    # right at frame 10, 5 cm up at frame 1: static criteria hold at every graded frame
    ("shape_match", {"object": "Leg.Hover", "grid": HOVER_GRID, "min_iou": 0.95, "frame": 10}, 0.0),
    ("shape_match", {"object": "Leg.Float", "grid": LEG_GRID, "min_iou": 0.5}, 0.0),  # elsewhere
    ("shape_match", {"object": "Corners", "grid": LEG_GRID, "min_iou": 0.1}, 0.0),
    # --- shells (S20...) ---
    # a stub plus a shell hidden in the slab: two shells, one hidden
    ("solid_parts", {"objects": ["Leg.Good", "Leg.Stub"], **SOLID}, 0.5),
    # a post cut to a puck with a 1 cm cube keeping its box: two shells, the cube under min_extent
    ("solid_parts", {"objects": ["Leg.Good", "Post.Puck"], "min_extent": 0.02}, 0.5),
    ("solid_parts", {"object": "Islands", "max_shells": {"Islands": 2}, "min_volume": 0.0015,
                     "max_loose_fraction": 0.1}, 1.0),
    # filled: a top with a 30 cm hole through it (genus 1, sections 91 % filled) against a solid one
    ("solid_parts", {"objects": ["Top.Solid", "Top.Holed"], **TOPS}, 0.5),
    ("solid_parts", {"objects": ["Top.Solid", "Slab", "Leg.Mirror"], **TOPS, "min_volume": 0.001}, 1.0),
    ("solid_parts", {"object": "Top.Holed", "min_fill": 0.6, "max_holes": 1}, 1.0),  # one hole allowed
    # contact: a part buried in the slab, the stub's hidden shell, a leg running 2 cm in (max 5 mm)
    ("parts_touch", {"object": "Slab", "others": ["Leg.Good", "Dowel", "Leg.Stub"], "tolerance": 0.003}, 1 / 3),
    ("parts_touch", {"object": "Slab", "others": ["Leg.Good", "Leg.Through"], "tolerance": 0.003,
                     "max_penetration": 0.005}, 0.5),
    ("ground_contact", {"objects": ["Leg.Good", "Leg.Plinth"]}, 0.5),  # its foot is hidden in the plinth
    ("ground_contact", {"objects": ["Leg.Stub", "Post.Puck"]}, 1.0),  # stubs stand; solid_parts fails them
    # dimensions: of what renders (faces of visible shells)
    ("dimensions", {"object": "Leg.Vertex", "expected": [0.05, 0.05, 0.65], "tolerance": 0.001}, 1.0),
    ("dimensions", {"object": "Leg.Stub", "expected": [0.05, 0.05, 0.74], "tolerance": 0.01}, 0.0),
    ("mesh_islands", {"object": "Islands", "count": 2, "pitch": 0.5, "axis": "X"}, 1.0),
    ("mesh_islands", {"objects": ["Islands", "Leg.Stub"], "count": 2}, 0.5),  # Leg.Stub's 2nd shell is hidden
    # UV overlap, exact: a 3 mm sliver (0.3 % of the area) between the old raster's samples
    ("uv_overlap", {"objects": ["UV.Good", "UV.Sliver"], "max_overlap": 0.001}, 0.5),
    ("uv_overlap", {"object": "UV.Good", "max_overlap": 0.0, "resolution": 256}, 1.0),  # edges meeting: none
    # voxels never coarser than the thinnest part: the comb filled every 10 cm voxel centre
    ("shape_match", {"object": "Ref.Box", "grid": BOX_GRID, "min_iou": 0.95}, 1.0),
    ("shape_match", {"object": "Comb", "grid": COMB_GRID, "min_iou": 0.5}, 0.0),
]


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> tuple[dict, dict]:
    tmp = tmp_path_factory.mktemp("solid")
    script, blend = tmp / "scene.py", tmp / "solid.blend"
    script.write_text(SCENE)
    grid = json.dumps({"min": GRID_MIN, "max": GRID_MAX, "size": GRID_SIZE})
    proc = run_bpy_script(str(script), str(blend), str(ROOT / "verifiers"), grid)
    assert proc.returncode == 0, proc.stderr[-3000:]
    built = json.loads(Path(str(blend) + ".json").read_text())
    write_rule_task(tmp, {f"S{i:02d}": (m, p) for i, (m, p, _) in enumerate(CASES)}, "probes-solid")
    report = probe_local(blend, tmp / "task.json", tmp / "rubric.json", tmp / "report.json")
    return built, {c["id"]: c for c in report["criteria"]}


@pytest.mark.parametrize(("index", "method", "params", "want"),
                         [(i, m, p, w) for i, (m, p, w) in enumerate(CASES)],
                         ids=[f"S{i:02d}-{m}" for i, (m, _, _) in enumerate(CASES)])
def test_case_scores(graded, index, method, params, want):
    entry = graded[1][f"S{index:02d}"]
    assert entry["method"] == method
    assert entry["score"] == pytest.approx(want, abs=1e-6), entry
    assert entry["passed"] is (want == 1.0), entry


def test_every_primitive_has_a_passing_and_a_failing_case():
    for method in {m for m, _, _ in CASES}:
        scores = [w for m, _, w in CASES if m == method]
        assert 1.0 in scores and min(scores) < 1.0, method


def test_measures_and_evidence_name_what_failed(graded):
    _, got = graded
    fakes = got["S01"]
    assert fakes["evidence"]["failing"] == {
        "Sheet": ["min_faces", "encloses", "min_extent", "min_volume"],
        "Corners": ["no faces"],
        "StandIn": ["hidden_shell", "min_volume", "max_loose_fraction"],  # inside Leg.Good
        "Leg.Vertex": ["max_loose_fraction"]}
    good = fakes["measured"]["Leg.Good"]
    assert good["faces"] == 6 and good["volume"] == pytest.approx(0.00175) and good["area"] == pytest.approx(0.145)
    assert good["loose_fraction"] == 0 and good["extent"] == pytest.approx([0.05, 0.05, 0.7])
    assert fakes["measured"]["Leg.Vertex"]["loose_fraction"] == pytest.approx(1 / 9)
    solid = got["S00"]["measured"]
    assert solid["Leg.Mirror"]["volume"] == pytest.approx(0.00175)  # negative scale: still positive
    assert solid["Panel"]["volume"] == pytest.approx(0.005)  # the Solidify modifier counts
    touch = got["S06"]["evidence"]["contact"]
    assert touch["Leg.Through"] == "intersecting"
    apart = got["S08"]
    assert apart["measured"]["Leg.Float"] == pytest.approx(0.05)
    assert apart["measured"]["Corners"] is None and apart["evidence"]["contact"]["Corners"] == "no faces"
    assert apart["measured"]["StandIn"] is None  # its cube is a shell hidden inside Leg.Good
    assert apart["evidence"]["contact"]["StandIn"] == "buried"
    floor = got["S11"]["evidence"]["failing"]
    assert floor == {"Leg.Hover": ["contact_area"], "Leg.Vertex": ["contact_area"], "Corners": ["no faces"],
                     "Sheet": ["contact_area"], "Sunk": ["contact_area", "below"]}
    assert got["S10"]["measured"]["Leg.Mirror"]["contact_area"] == pytest.approx(0.0025)
    hover = got["S17"]["measured"]
    assert hover["iou"] == pytest.approx(24 / 28) and hover["reference_occupied"] == 104  # two layers off


def test_voxel_signature_matches_the_box_computed_without_blender(graded):
    built, _ = graded
    assert built["signature"] == LEG_SIGNATURE
    assert bin(int(LEG_SIGNATURE, 16)).count("1") == 112
    assert built["coarse"].startswith("voxel grid too coarse")


def test_shells_name_what_they_catch(graded):
    _, got = graded
    stub = got["S21"]
    assert stub["evidence"]["failing"] == {"Leg.Stub": ["hidden_shell", "max_shells"]}
    assert stub["measured"]["Leg.Stub"]["shells"] == 2
    assert stub["measured"]["Leg.Stub"]["per_shell"][1]["hidden"] == pytest.approx(1.0)
    assert got["S22"]["evidence"]["failing"] == {"Post.Puck": ["min_extent", "max_shells"]}
    holed = got["S24"]["measured"]["Top.Holed"]["per_shell"][0]
    assert holed["holes"] == 1 and holed["fill"] == pytest.approx(0.7, abs=1e-6)  # a cut across the hole
    assert got["S24"]["evidence"]["failing"] == {"Top.Holed": ["min_fill", "max_holes"]}
    touch = got["S27"]["evidence"]
    assert touch["not_touching"] == ["Dowel", "Leg.Stub"] and touch["contact"]["Dowel"] == "buried"
    assert got["S27"]["measured"]["Leg.Stub"] == pytest.approx(0.65)  # the stub, not the hidden shell
    deep = got["S28"]["evidence"]
    assert deep["contact"]["Leg.Through"] == "too deep" and deep["penetration"]["Leg.Through"] == pytest.approx(0.02)
    assert got["S29"]["evidence"]["failing"] == {"Leg.Plinth": ["contact_area"]}
    assert got["S32"]["measured"] == pytest.approx([0.05, 0.05, 0.05])
    assert got["S33"]["measured"]["Islands"]["count"] == 2
    sliver = got["S35"]["measured"]["UV.Sliver"]
    assert sliver["overlap"] == pytest.approx(0.0015 / 0.5, rel=1e-3) and got["S35"]["measured"]["UV.Good"]["overlap"] == 0
    comb = got["S38"]["measured"]
    assert 0.011 < comb["thinnest"] <= 0.012 and comb["split"] == [9, 9, 9] and comb["iou"] < 0.1
    assert got["S37"]["measured"]["split"] == [1, 1, 1] and got["S37"]["measured"]["iou"] == 1.0


# Two scenes with the same names: "Top" solid and "Leg" in the open (A); "Top" holed and "Leg"
# inside a closed box (B). Measures kept for the warm process (probe_core.remember) are keyed by
# the shapes measured, never by a name.
KEPT_SCENE = '''
import sys
import bpy
out, holed_top = sys.argv[1], sys.argv[2] == "B"
#SHAPES#
if holed_top:  # a 1 m top with a 30 cm hole through it
    holed("Top", 0.0, 0.0, 0.7, 0.74, 0.5, 0.15)
    box("Cover", (2.8, -0.2, -0.1), (3.2, 0.2, 0.9))  # closed around the leg
else:
    box("Top", (-0.5, -0.5, 0.7), (0.5, 0.5, 0.74))
    box("Cover", (4.8, -0.2, -0.1), (5.2, 0.2, 0.9))  # aside
box("Leg", (2.95, -0.05, 0.0), (3.05, 0.05, 0.7))
bpy.ops.wm.save_as_mainfile(filepath=out)
'''.replace("#SHAPES#\n", SHAPES)


def test_kept_measures_follow_the_shape_not_the_name(tmp_path):
    """section_fill and parts_unoccluded answer from memos kept for the warm probe process:
    the same names over other shapes get fresh answers, the first shapes their first ones."""
    script = tmp_path / "kept.py"
    script.write_text(KEPT_SCENE)
    for which in ("A", "B"):
        proc = run_bpy_script(str(script), str(tmp_path / f"{which}.blend"), which)
        assert proc.returncode == 0, proc.stderr[-3000:]
    write_rule_task(tmp_path, {"fill": ("solid_parts", {"object": "Top", "min_fill": 0.95}),
                               "seen": ("parts_unoccluded", {"object": "Leg"})}, "kept-measures")
    scores = []
    for n, which in enumerate(("A", "B", "A")):
        report = probe_local(tmp_path / f"{which}.blend", tmp_path / "task.json", tmp_path / "rubric.json",
                             tmp_path / f"report-{n}.json")
        scores.append({c["id"]: c["score"] for c in report["criteria"]})
    assert scores == [{"fill": 1.0, "seen": 1.0}, {"fill": 0.0, "seen": 0.0}, {"fill": 1.0, "seen": 1.0}]
