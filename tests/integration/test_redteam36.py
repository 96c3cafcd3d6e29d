"""Red team 36 (issue 33), in real Blender: cuts between the section planes, pieces run into one
another, and a rod for a top.

* table-model passed with a slot, a channel and a notch cut into its top and its legs sawn
  nearly through (a 3 mm web left), each between the nine evenly spaced planes ``section_fill``
  cut per axis, and measured against the section's own 2-D hull (the web's is the web).  Now a
  plane also falls between each two neighbouring vertex heights, and a section is measured
  against the same plane's section of the piece's 3-D convex hull; ``shape_measures``
  ``section_fill`` holds a slab to 99 % of its outline (REQ-TOP-SIZE: no slot, notch or hollow).
* fence-array passed with its two rails run 1.5 cm into each other (one thick rail, each 40 %
  inside the other, under the 50 % that counts as hidden): ``solid_parts`` now refuses two
  pieces of one object passing more than ``FUSED_DEPTH`` into one another (``fused_shells``);
  two rails touching face to face reach no depth and pass (the spec leaves rail heights free).
* fence-array passed with posts and pickets full only to ~81 % of their height and a 1 cm rod
  above (``box_filled`` 0.81 over the 0.8 asked): above the filled length a top now narrows no
  faster than a pyramid on the full section (``top_taper``); a pyramid or a gabled point passes.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import BPY_SCENE_HELPERS, assert_refused_as_expected, probe_local, run_bpy, write_rule_task

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = BPY_SCENE_HELPERS + r'''
from mathutils import Matrix


def prism(name, rings, extra_boxes=()):
    """A closed lofted solid: rings [(z, (x0, x1, y0, y1))] bottom to top (a ring of zero width
    is a ridge or a point), and more boxes [(size, centre)] in the same mesh."""
    bm = bmesh.new()
    if rings:
        vs = [[bm.verts.new((x0, y0, z)), bm.verts.new((x1, y0, z)), bm.verts.new((x1, y1, z)),
               bm.verts.new((x0, y1, z))] for z, (x0, x1, y0, y1) in rings]
        bm.faces.new(list(reversed(vs[0])))
        for a, b in zip(vs, vs[1:]):
            for i in range(4):
                j = (i + 1) % 4
                bm.faces.new((a[i], a[j], b[j], b[i]))
        bm.faces.new(vs[-1])
    for size, centre in extra_boxes:
        bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation(centre) @ Matrix.Diagonal((*size, 1.0)))
    bmesh.ops.remove_doubles(bm, verts=bm.verts, dist=1e-7)
    bmesh.ops.recalc_face_normals(bm, faces=bm.faces)
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def cut_away(obj, lo, hi):
    """The box [lo, hi] cut out of obj's mesh (an exact Boolean difference, applied)."""
    size = [b - a for a, b in zip(lo, hi)]
    centre = [(a + b) / 2 for a, b in zip(lo, hi)]
    cutter = prism("Cutter", [], [(size, centre)])
    mod = obj.modifiers.new("Cut", "BOOLEAN")
    mod.operation, mod.object, mod.solver = "DIFFERENCE", cutter, "EXACT"
    depsgraph = bpy.context.evaluated_depsgraph_get()
    cut = bpy.data.meshes.new_from_object(obj.evaluated_get(depsgraph), depsgraph=depsgraph)
    obj.modifiers.remove(mod)
    obj.data = cut
    bpy.data.objects.remove(cutter)


SLAB = (-0.6, 0.6, -0.4, 0.4)


def slab(name, cut=None):
    fresh()
    obj = prism("Part", [(0.71, SLAB), (0.75, SLAB)])
    if cut:
        cut_away(obj, *cut)
    save(name)


def rounded_slab():
    """rounded corners and eased edges: a convex slab"""
    fresh()
    obj = prism("Part", [(0.71, SLAB), (0.75, SLAB)])
    bevel = obj.modifiers.new("Bevel", "BEVEL")
    bevel.width, bevel.segments = 0.01, 4
    depsgraph = bpy.context.evaluated_depsgraph_get()
    obj.data = bpy.data.meshes.new_from_object(obj.evaluated_get(depsgraph), depsgraph=depsgraph)
    obj.modifiers.remove(bevel)
    save("slab_rounded")


LEG = (-0.03, 0.03, -0.03, 0.03)


def leg(name, rings=None, cut=None):
    fresh()
    obj = prism("Part", rings or [(0.0, LEG), (0.71, LEG)])
    if cut:
        cut_away(obj, *cut)
    save(name)


def rails(name, low, high):
    """two 1.6 x 0.03 x 0.07 boxes in one object, their bottoms at `low` and `high`"""
    fresh()
    prism("Part", [], [((1.6, 0.03, 0.07), (0.0, 0.0, low + 0.035)), ((1.6, 0.03, 0.07), (0.0, 0.0, high + 0.035))])
    save(name)


POST = (-0.05, 0.05, -0.05, 0.05)
ROD = (-0.005, 0.005, -0.005, 0.005)


def post(name, rings):
    fresh()
    prism("Part", rings)
    save(name)


slab("slab")
rounded_slab()
slab("slab_slotted", ((-0.12, -0.41, 0.70), (-0.01, 0.0, 0.76)))  # through, front edge to middle
slab("slab_grooved", ((-0.7, -0.08, 0.747), (0.7, -0.01, 0.76)))  # 3 mm deep, along the whole top
slab("slab_notched", ((-0.25, -0.41, 0.70), (0.25, -0.36, 0.76)))  # 50 x 4 cm bite out of the front edge
leg("leg")
leg("leg_tapered", [(0.0, (-0.02, 0.02, -0.02, 0.02)), (0.71, LEG)])
leg("leg_sawn", cut=((-0.04, -0.04, 0.127), (0.027, 0.04, 0.19)))  # a 3 mm web left at +x
rails("rails_apart", 0.25, 0.75)
rails("rails_touching", 0.50, 0.57)
rails("rails_fused", 0.465, 0.52)
post("post", [(0.0, POST), (1.1, POST)])
post("post_pyramid_top", [(0.0, POST), (0.9, POST), (1.1, (-0.0001, 0.0001, -0.0001, 0.0001))])
post("post_gabled_top", [(0.0, POST), (0.95, POST), (1.1, (-0.05, 0.05, -0.0001, 0.0001))])
post("post_rod_top", [(0.0, POST), (0.885, POST), (0.885, ROD), (1.1, ROD)])
'''

SLAB_CASES = {"SOLID": ("solid_parts", {"object": "Part", "min_fill": 0.9, "frame": 1}),
              "SLAB": ("shape_measures", {"object": "Part", "section_fill": [0.99, 1.001], "frame": 1})}
CASES = {
    "slab": SLAB_CASES,
    "leg": {"SOLID": ("solid_parts", {"object": "Part", "min_fill": 0.9, "frame": 1})},
    "rails": {"SOLID": ("solid_parts", {"object": "Part", "max_shells": 2, "min_fill": 0.9, "frame": 1})},
    "post": {"SOLID": ("solid_parts", {"object": "Part", "min_fill": 0.9, "min_box_filled": 0.8, "frame": 1})},
}
EXPECTED = {
    ("slab", "slab"): {},
    ("slab", "slab_rounded"): {},
    ("slab", "slab_slotted"): {"SOLID": "Part (min_fill)", "SLAB": "Part (section_fill)"},
    ("slab", "slab_grooved"): {"SLAB": "Part (section_fill)"},
    ("slab", "slab_notched"): {"SOLID": "Part (min_fill)", "SLAB": "Part (section_fill)"},
    ("leg", "leg"): {},
    ("leg", "leg_tapered"): {},
    ("leg", "leg_sawn"): {"SOLID": "Part (min_fill)"},
    ("rails", "rails_apart"): {},
    ("rails", "rails_touching"): {},
    ("rails", "rails_fused"): {"SOLID": "Part (fused_shells)"},
    ("post", "post"): {},
    ("post", "post_pyramid_top"): {},
    ("post", "post_gabled_top"): {},
    ("post", "post_rod_top"): {"SOLID": "pointed_top"},
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam36")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    tasks = {task: write_rule_task(tmp / task, cases, f"redteam36-{task}", start_mode="from_scratch")
             for task, cases in CASES.items()}
    return {"tmp": tmp, **tasks}


@pytest.mark.parametrize(("task", "delivery"), sorted(EXPECTED))
def test_cuts_between_planes_fused_pieces_and_rod_tops_are_refused(scenes, task, delivery):
    task_path, rubric = scenes[task]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task_path, rubric,
                         scenes["tmp"] / f"report-{task}-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[(task, delivery)], delivery)
