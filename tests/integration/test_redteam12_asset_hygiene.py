"""Red team 12 (issue 33), asset-hygiene, in real Blender: a clean-up that applies rotation and
scale keeps the surface a render places in the world, and a part is cut out by a holdout
collection whichever of its collections it is.

* ``scene_unchanged`` allowed ``geometry`` (every vertex position and, through it, every normal)
  so that a task could let the transform move into the mesh: tilted custom normals, shade smooth,
  mirrored (inside-out) positions and a leg slid inward passed.  Now the snapshot holds
  ``world_mesh`` (world positions and world corner normals, compared within a tolerance) and
  ``applied_transform`` allows the matrix, scale, local positions and normals to change while
  ``world_mesh`` stays: an honest apply passes, each trick is named.
* Blender ORs holdout and indirect-only over every collection holding an object; the grader's
  render visibility counted a part rendered once one ordinary collection showed it.  A part also
  linked into a Holdout or Indirect Only collection is now hidden from render.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.probe_cases import probe_local, assert_refused_as_expected, run_bpy, write_rule_task
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

SNAPSHOT_SCRIPT = Path(__file__).resolve().parents[2] / "verifiers" / "scene_snapshot.py"

MAKE = r'''
import math
import sys
from pathlib import Path

import bpy
import bmesh
from mathutils import Matrix, Vector

out = Path(sys.argv[-1])


def box(bm, lo, hi):
    size = [b - a for a, b in zip(lo, hi)]
    centre = [(a + b) / 2 for a, b in zip(lo, hi)]
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation(centre) @ Matrix.Diagonal((*size, 1.0)))


def prop(name, parts, location, rotation, scale):
    bm = bmesh.new()
    for lo, hi in parts:
        box(bm, lo, hi)
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new(name, mesh)
    obj.location, obj.rotation_euler, obj.scale = location, rotation, scale
    bpy.context.scene.collection.objects.link(obj)
    return obj


def start():
    """A table modelled in centimetres (scale 0.01): a top on two loose legs; a crate exported
    Y-up in centimetres (rotated 90 degrees about X, scale 0.01)."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    table = prop("Table", [((-50, -25, 70), (50, 25, 75)), ((-48, -4, 0), (-40, 4, 70)), ((40, -4, 0), (48, 4, 70))],
                 (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.01, 0.01, 0.01))
    crate = prop("Crate", [((0, 0, 0), (40, 20, 30))], (1.0, 0.5, 0.0), (math.radians(90), 0.0, 0.0),
                 (0.01, 0.01, 0.01))
    return table, crate


def applied():
    """The honest clean-up, on the data: rotation and scale baked into each mesh."""
    props = start()
    for obj in props:
        loc, rot, scale = obj.matrix_basis.decompose()
        obj.data.transform(rot.to_matrix().to_4x4() @ Matrix.Diagonal((*scale, 1.0)))
        obj.matrix_basis = Matrix.Translation(loc)
        obj.data.update()
    return props


def save(name):
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


start()
save("start")
applied()
save("honest")

table, crate = applied()
down, tilt = Vector((0.0, 0.0, -1.0)), math.radians(85.0)
corners = [None] * len(table.data.loops)
for poly in table.data.polygons:
    side = down - poly.normal * down.dot(poly.normal)
    side = side.normalized() if side.length > 1e-6 else Vector((-1.0, 0.0, 0.0))
    normal = (poly.normal * math.cos(tilt) + side * math.sin(tilt)).normalized()
    for li in poly.loop_indices:
        corners[li] = tuple(normal)
table.data.normals_split_custom_set(corners)
save("normals_tilted")

table, crate = applied()
table.data.shade_smooth()
save("shade_smooth")

table, crate = applied()
xs = [v.co.x for v in crate.data.vertices]
for v in crate.data.vertices:
    v.co.x = min(xs) + max(xs) - v.co.x  # mirrored in place: same box, faces inward
crate.data.update()
save("mirrored")

table, crate = applied()
for v in table.data.vertices:
    if v.co.z < 0.01 and v.co.x > 0.0:
        v.co.x -= 0.3  # the right leg's foot slid inward, under the top
table.data.update()
save("foot_moved")

for flag in ("holdout", "indirect_only"):
    table, crate = applied()
    masks = bpy.data.collections.new("Masks")
    bpy.context.scene.collection.children.link(masks)
    masks.objects.link(crate)  # also: it stays in the scene collection
    setattr(bpy.context.view_layer.layer_collection.children["Masks"], flag, True)
    save(f"second_{flag}")
'''

KEPT = {"allow_changed": {"Table": ["applied_transform", "collections"], "Crate": ["applied_transform", "collections"],
                          "render": ["collections", "layer_collections"]}}
CASES = {
    "KEPT": ("scene_unchanged", KEPT),
    "SHOWN": ("dimensions", {"object": "Crate", "expected": [0.4, 0.3, 0.2], "tolerance": 0.001}),
    # a rubric that allows geometry lets the world-space surface change with it, as before
    "GEOMETRY": ("scene_unchanged", {"allow_changed": {o: ["matrix_world", "world_scale", "geometry", "collections"]
                                                       for o in ("Table", "Crate")}
                                     | {"render": ["collections", "layer_collections"]}}),
}
TURNED = "world_mesh: shading normals turned in the world"
MOVED = "world_mesh: vertices moved in the world"
EXPECTED = {
    "honest": {},
    # the shading layers' presence is part of a kept mesh's attributes since red team 45: custom
    # normals add one, Shade Smooth takes sharp_face away -- a rubric allowing geometry does not allow it
    "normals_tilted": {"KEPT": TURNED, "GEOMETRY": "Table (attributes)"},
    "shade_smooth": {"KEPT": TURNED, "GEOMETRY": "Table (attributes)"},
    "mirrored": {"KEPT": MOVED},
    "foot_moved": {"KEPT": MOVED},
    "second_holdout": {"KEPT": "Crate (rendered)", "SHOWN": "hidden from render", "GEOMETRY": "Crate (rendered)"},
    "second_indirect_only": {"KEPT": "Crate (rendered)", "SHOWN": "hidden from render",
                             "GEOMETRY": "Crate (rendered)"},
}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam12-asset-hygiene")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    task, rubric = write_rule_task(tmp / "task", CASES, "redteam12-asset-hygiene", start_mode="continue")
    run_bpy(SNAPSHOT_SCRIPT, "--blend", tmp / "start.blend", "--out", rubric.with_name("start_scene.json"))
    return {"tmp": tmp, "task": task, "rubric": rubric}


def test_the_start_snapshot_holds_the_world_surface(scenes):
    snap = json.loads(scenes["rubric"].with_name("start_scene.json").read_text(encoding="utf-8"))
    sketch = snap["objects"]["Crate"]["world_mesh"]
    assert sketch["vertices"] == 8 and sketch["corners"] == 24 and sketch["step"] == [1, 1], sketch


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_the_world_surface_and_holdout_collections(scenes, delivery):
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", scenes["task"], scenes["rubric"],
                                   scenes["tmp"] / f"report-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[delivery], delivery)
    kept = next(c for c in report["criteria"] if c["id"] == "KEPT")
    if delivery == "foot_moved":  # the evidence names the vertex and how far it went
        [change] = kept["evidence"]["changes"]
        moved = change["changes"]["world_mesh"]["diff"]["vertices moved in the world"]
        assert moved["offset_m"] == pytest.approx(0.3, abs=1e-4) and moved["moved"] == 4, moved


def test_the_new_operators_are_listed():
    assert {"surface_normals_tilted", "surface_shade_smooth", "surface_mirrored", "surface_warped",
            "second_collection_holdout", "second_collection_indirect_only"} <= set(OPERATOR_NAMES)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
