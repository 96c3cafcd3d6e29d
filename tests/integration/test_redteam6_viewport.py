"""Red team 6, viewport-only geometry, in real Blender: sizes and "inside the box" hold for what
the viewport shows as well as for what a render shows.

Two table-model deliveries got success: a brace inside the table with an Array of 30 shown in
the viewport only (the file opens with a 3 m row of boxes sticking out of the table), and a top
with an Array of 3 shown in the viewport only (the file opens with a 3.6 m top).  The probe
measured the render-mode depsgraph alone, which never evaluates a modifier switched off for
renders.  Now ``Probe.viewport_aabb`` also evaluates the viewport (lazily, per frame, only for
objects whose viewport shape can differ): ``dimensions`` holds for both boxes, ``aabb_within``,
``new_objects`` and ``others_drawn`` for their union.  Legitimate practice -- a Subdivision at
viewport level 1 and render level 2, a heavy modifier off in the viewport -- still passes.  The
seed's own scripts build the scenes; Blender runs unsandboxed (LOCAL): everything it runs here is
this repository's own code."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from tests.probe_cases import local_probe, run_bpy, write_rule_task
from tests.table_cases import DRAFT, MAKE_HEAD, OUTLINE, PARTS

pytestmark = pytest.mark.blender

MAKE = MAKE_HEAD + r'''

def brace(name="Brace", collection=None):
    """A 10 x 5 x 5 cm box inside the table, under the top."""
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation((0, 0, 0.3)) @ Matrix.Diagonal((0.1, 0.05, 0.05, 1)))
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new(name, mesh)
    (collection or bpy.context.scene.collection).objects.link(obj)
    return obj


def array(obj, count, viewport=True, render=False):
    mod = obj.modifiers.new("Array", "ARRAY")
    mod.count = count
    mod.show_viewport, mod.show_render = viewport, render
    return mod


def save(name):
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


build("solution/solve.py")
save("reference")
build("calibration/gaming/viewport_only_array.py")
save("brace_viewport_array")
build("calibration/gaming/top_viewport_only_array.py")
save("top_viewport_array")
build("solution/solve.py")
array(bpy.data.objects["Tabletop"], 3, viewport=False, render=True)
save("top_render_array")
build("solution/solve.py")
array(bpy.data.objects["Leg.FL"], 30)
save("leg_viewport_array")
build("solution/solve.py")
hidden = bpy.data.collections.new("Braces")  # drawn only as a collection instance
array(brace("Brace.Source", hidden), 30)
holder = bpy.data.objects.new("Holder", None)
holder.instance_type, holder.instance_collection = "COLLECTION", hidden
bpy.context.scene.collection.objects.link(holder)
save("instanced_viewport_array")
# honest practice: viewport and render levels differ, a heavy modifier is off in the viewport
build("solution/solve.py")
for name in ("Tabletop", "Leg.FL", "Leg.FR", "Leg.BL", "Leg.BR"):
    sub = bpy.data.objects[name].modifiers.new("Subdivision", "SUBSURF")
    sub.subdivision_type, sub.levels, sub.render_levels = "SIMPLE", 1, 2
rounded = brace("Apron")
smooth = rounded.modifiers.new("Subdivision", "SUBSURF")
smooth.levels, smooth.render_levels = 1, 2  # Catmull-Clark: the box shrinks a little, more in render
remesh = rounded.modifiers.new("Remesh", "REMESH")
remesh.voxel_size, remesh.show_viewport = 0.005, False  # slow: render only
save("levels_differ")
# the viewport is stepped with the frame: the brace's row grows from 1 copy to 30 over frames 1-10
build("solution/solve.py")
grow = array(brace(), 1)
grow.keyframe_insert("count", frame=1)
grow.count = 30
grow.keyframe_insert("count", frame=10)
bpy.context.scene.frame_set(1)
save("grows_in_viewport")
'''

CRITERIA = {
    "OVERALL": ("dimensions", {"objects": PARTS, "expected": [1.2, 0.8, 0.75], "tolerance": 0.01}),
    "TOP": ("dimensions", {"object": "Tabletop", "expected": [1.2, 0.8, 0.04], "tolerance": 0.005}),
    "LEGS": ("aabb_within", {"regions": {
        "Leg.FL": {"min": [-0.602, -0.402, -0.003], "max": [-0.4, -0.2, 0.752]},
        "Leg.BR": {"min": [0.4, 0.2, -0.003], "max": [0.602, 0.402, 0.752]}}}),
    "WITHIN": ("new_objects", {"expected": PARTS, "others_within": OUTLINE, "all_within": True}),
    "DRAWN": ("others_drawn", {"expected": PARTS, "others_within": OUTLINE}),
    "WITHIN_F10": ("new_objects", {"expected": PARTS, "others_within": OUTLINE, "all_within": True,
                                   "frame": 10}),
}
# scene -> the criteria that fail there (every other one passes)
FAILS = {
    "reference": set(),
    "levels_differ": set(),
    "brace_viewport_array": {"WITHIN", "DRAWN", "WITHIN_F10"},
    "top_viewport_array": {"OVERALL", "TOP"},
    "top_render_array": {"OVERALL", "TOP"},  # the render is wrong, the viewport right: still wrong
    "leg_viewport_array": {"OVERALL", "LEGS"},
    "instanced_viewport_array": {"WITHIN", "DRAWN", "WITHIN_F10"},
    "grows_in_viewport": {"WITHIN_F10"},
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam6-viewport")
    script = tmp / "make.py"
    script.write_text(MAKE, encoding="utf-8")
    run_bpy(script, DRAFT, tmp)
    task, rubric = write_rule_task(tmp / "task", CRITERIA, "redteam6-viewport")
    out = {"tmp": tmp, "task": (task, rubric)}
    with local_probe() as probe:
        for scene in FAILS:
            report = probe.probe(tmp / f"{scene}.blend", task, rubric, tmp / f"{scene}.json")
            out[scene] = {c["id"]: c for c in report["criteria"]}
    return out


@pytest.mark.parametrize("scene", sorted(FAILS))
def test_verdicts(graded, scene):
    for cid, c in graded[scene].items():
        assert c.get("error") is None, (scene, cid, c.get("error"))
        assert c["passed"] is (cid not in FAILS[scene]), (scene, cid, c["detail"])


def test_the_details_name_what_the_viewport_shows(graded):
    top = graded["top_viewport_array"]["TOP"]
    assert top["measured"] == pytest.approx([1.2, 0.8, 0.04], abs=1e-4)  # the render's box
    assert top["evidence"]["viewport_size"] == pytest.approx([3.6, 0.8, 0.04], abs=1e-4), top
    assert "the viewport shows" in top["detail"]
    brace = graded["brace_viewport_array"]["WITHIN"]
    assert set(brace["evidence"]["outside"]) == {"Brace"}
    assert brace["evidence"]["outside"]["Brace"]["max"][0] == pytest.approx(2.95, abs=1e-3)
    assert set(graded["instanced_viewport_array"]["DRAWN"]["evidence"]["outside"]) == {"Holder"}
    # levels that differ move the box by far less than any tolerance
    honest = graded["levels_differ"]["OVERALL"]
    assert max(honest["evidence"].get("viewport_axis_errors", [0.0])) < 1e-3, honest


def test_a_fixed_mesh_is_not_measured_twice():
    """A mesh without modifiers, shape keys or a deforming parent shows one shape: the viewport is
    not evaluated for it (the probe's cost on a plain model is unchanged); a modifier, a vertex
    parent or instancing can make the viewport differ."""
    script = r'''
import sys
sys.path.insert(0, sys.argv[-1])
import bpy
from probe_core import viewport_may_differ
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.mesh.primitive_cube_add()
cube = bpy.context.object
assert not viewport_may_differ(cube)
cube.modifiers.new("Array", "ARRAY")
assert viewport_may_differ(cube)
child = bpy.data.objects.new("Child", None)
bpy.context.scene.collection.objects.link(child)
child.parent, child.parent_type = cube, "VERTEX"
assert viewport_may_differ(child)  # it follows the parent's evaluated vertex
holder = bpy.data.objects.new("Holder", None)
holder.instance_type = "COLLECTION"
assert viewport_may_differ(holder)
'''
    path = Path(__file__).resolve().parents[2] / "verifiers"
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "check.py").write_text(script, encoding="utf-8")
        run_bpy(Path(tmp) / "check.py", path)


# --- the operator (verifiers/mutations.py, "red team 6: viewport") ---------------------------------


def test_viewport_only_array_is_refused_by_the_sizes(graded):
    task, rubric = graded["task"]
    with local_probe() as probe:
        (row,) = probe.mutate(graded["tmp"] / "reference.blend", task, rubric, operators=["viewport_only_array"])
    assert row["applicable"] and row["error"] is None, row
    refused = {c["id"] for c in row["criteria"] if not c["passed"]}
    assert refused == {"OVERALL", "TOP", "LEGS"}, row["criteria"]  # the parts grow; no extra object
