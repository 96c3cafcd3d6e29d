"""Red team 9 (issue 33): renamed objects keep everything, in real Blender.

A task that renames objects (asset-hygiene) let scene_unchanged see the old objects as removed
and the new ones as new, so nothing of them was compared with the start scene: ray flags off
(no shadows), faces flipped with backface culling on the materials, the Principled BSDF's
distribution and subsurface method switched all passed.  Here: ``allow_renamed`` pairs a
renamed object with its start entry (its name, and what allow_changed allows under the new
name, may change; nothing else), principled_inputs' ``settings`` pins the node's own menus, and
the three new mutation operators make changes these criteria refuse.  Blender runs unsandboxed
(LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.probe_cases import probe_local, run_bpy, write_rule_task


pytestmark = pytest.mark.blender

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT_SCRIPT = ROOT / "verifiers" / "scene_snapshot.py"

# start.blend: a rotated, scaled cube "Old" with a Principled material; then the honest clean-up
# (renamed to "New", rotation and scale baked into the mesh) and three tricks on top of it.
MAKE = r'''
import sys
from math import radians
from pathlib import Path

import bpy
import bmesh  # importable once bpy is
from mathutils import Matrix

out = Path(sys.argv[-1])
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.frame_start, scene.frame_end = 1, 1
bm = bmesh.new()
bmesh.ops.create_cube(bm, size=1.0)
mesh = bpy.data.meshes.new("Old")
bm.to_mesh(mesh)
bm.free()
obj = bpy.data.objects.new("Old", mesh)
obj.location, obj.rotation_euler, obj.scale = (0.0, 0.0, 1.0), (0.0, 0.0, radians(30)), (2.0, 1.0, 0.5)
scene.collection.objects.link(obj)
mat = bpy.data.materials.new("Paint")
mat.use_nodes = True
mat.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.8, 0.2, 0.1, 1.0)
mesh.materials.append(mat)
bpy.ops.wm.save_as_mainfile(filepath=str(out / "start.blend"))


def clean_up():
    obj = bpy.data.objects["Old"]
    obj.name = obj.data.name = "New"
    loc, rot, scale = obj.matrix_basis.decompose()
    obj.data.transform(rot.to_matrix().to_4x4() @ Matrix.Diagonal((*scale, 1.0)))
    obj.matrix_basis = Matrix.Translation(loc)
    return obj


def save(name, trick=None):
    bpy.ops.wm.open_mainfile(filepath=str(out / "start.blend"))
    obj = clean_up()
    if trick is not None:
        trick(obj)
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


def no_shadow(obj):
    for flag in ("visible_shadow", "visible_diffuse", "visible_glossy", "visible_transmission"):
        setattr(obj, flag, False)


def inside_out_culled(obj):
    obj.data.flip_normals()
    for m in bpy.data.materials:
        m.use_backface_culling = m.use_backface_culling_shadow = True


def culled_only(obj):
    bpy.data.materials["Paint"].use_backface_culling = True


def flipped_only(obj):
    obj.data.flip_normals()


def enums(obj):
    bsdf = bpy.data.materials["Paint"].node_tree.nodes["Principled BSDF"]
    bsdf.distribution, bsdf.subsurface_method = "GGX", "BURLEY"


save("clean")
for name, trick in (("no_shadow", no_shadow), ("inside_out_culled", inside_out_culled),
                    ("culled_only", culled_only), ("flipped_only", flipped_only), ("enums", enums)):
    save(name, trick)
'''

KEPT = {"allow_renamed": {"Old": "New"},
        "allow_changed": {"New": ["data", "matrix_world", "world_scale", "geometry"]}}
CASES = {
    "RENAMED": ("scene_unchanged", KEPT),
    # before: the renamed object as removed and new -- nothing of it compared
    "OLD_WAY": ("scene_unchanged", {"allow_removed": ["Old"], "allow_new": {"names": ["New"], "types": ["MESH"]}}),
    "ENUMS": ("principled_inputs", {"object": "New", "inputs": {"Roughness": 0.5},
                                    "settings": {"distribution": "MULTI_GGX", "subsurface_method": "RANDOM_WALK"}}),
}

# delivery -> {criterion: passes}; what the failing criterion must name
EXPECTED = {
    "clean": {"RENAMED": True, "OLD_WAY": True, "ENUMS": True},
    "no_shadow": {"RENAMED": False, "OLD_WAY": True, "ENUMS": True},
    "inside_out_culled": {"RENAMED": False, "OLD_WAY": True, "ENUMS": True},
    "culled_only": {"RENAMED": False, "OLD_WAY": True, "ENUMS": True},
    "flipped_only": {"RENAMED": False, "OLD_WAY": True, "ENUMS": True},
    "enums": {"RENAMED": False, "OLD_WAY": True, "ENUMS": False},
}
NAMED = {"no_shadow": "visible_shadow", "inside_out_culled": "topology", "culled_only": "material_settings",
         "flipped_only": "topology", "enums": "materials"}

APPLY_OPERATOR = r'''
import json, sys
from pathlib import Path
import bpy
sys.path.insert(0, sys.argv[-5])
import mutations
name, task_dir, blend, out = sys.argv[-4], Path(sys.argv[-3]), sys.argv[-2], sys.argv[-1]
bpy.ops.wm.open_mainfile(filepath=blend)
ctx = mutations.Context.of(json.loads((task_dir / "task.json").read_text()),
                           json.loads((task_dir / "rubric.json").read_text()),
                           json.loads((task_dir / "start_scene.json").read_text()))
op = mutations.OPERATORS[name]
why = op.applicable(ctx)
assert why is None, why
op.apply(ctx)
bpy.ops.wm.save_as_mainfile(filepath=out)
'''
OPERATORS = ("ray_visibility_off_renamed", "material_backface_culled", "principled_enum_switch")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("renamed")
    script = tmp / "make.py"
    script.write_text(MAKE, encoding="utf-8")
    run_bpy(script, tmp)
    task, rubric = write_rule_task(tmp / "task", CASES, "renamed")
    run_bpy(SNAPSHOT_SCRIPT, "--blend", tmp / "start.blend", "--out", tmp / "task" / "start_scene.json")
    return {"tmp": tmp, "task": task, "rubric": rubric}


def probe(scenes: dict, blend: Path) -> dict:
    out = scenes["tmp"] / f"report-{blend.stem}.json"
    report = probe_local(blend, scenes["task"], scenes["rubric"], out)
    return {c["id"]: c for c in report["criteria"]}


@pytest.mark.parametrize("delivery", sorted(EXPECTED))
def test_renamed_object_is_compared_with_its_start_self(scenes, delivery):
    got = probe(scenes, scenes["tmp"] / f"{delivery}.blend")
    for cid, passes in EXPECTED[delivery].items():
        assert got[cid]["passed"] is passes, (delivery, cid, got[cid]["detail"])
    if delivery in NAMED:
        assert "Old -> New" in got["RENAMED"]["detail"] and NAMED[delivery] in got["RENAMED"]["detail"]


def test_the_start_scene_passes_the_rename_criterion(scenes):
    """Not renamed yet: the object is compared under its old name, as any other."""
    got = probe(scenes, scenes["tmp"] / "start.blend")
    assert got["RENAMED"]["passed"] is True and got["RENAMED"]["score"] == 1.0


def test_principled_settings_name_what_changed(scenes):
    got = probe(scenes, scenes["tmp"] / "enums.blend")["ENUMS"]
    assert got["score"] == pytest.approx(1 / 3)
    assert got["measured"]["distribution"] == "GGX" and "subsurface_method" in got["detail"]


@pytest.mark.parametrize("name", OPERATORS)
def test_operator_is_refused_by_the_criteria(scenes, name):
    script = scenes["tmp"] / "apply_operator.py"
    script.write_text(APPLY_OPERATOR, encoding="utf-8")
    out = scenes["tmp"] / f"op-{name}.blend"
    run_bpy(script, ROOT / "verifiers", name, scenes["task"].parent, scenes["tmp"] / "clean.blend", out)
    got = probe(scenes, out)
    assert got["RENAMED"]["passed"] is False, got["RENAMED"]["detail"]
    if name == "principled_enum_switch":
        assert got["ENUMS"]["passed"] is False


def test_operators_do_not_apply_without_a_rename(scenes):
    script = scenes["tmp"] / "not_applicable.py"
    script.write_text(r'''
import json, sys
import bpy
sys.path.insert(0, sys.argv[-2])
import mutations
bpy.ops.wm.open_mainfile(filepath=sys.argv[-1])
ctx = mutations.Context.of({}, {"criteria": [{"id": "C", "method": "scene_unchanged", "params": {}}]},
                           {"objects": {}})
for name in ("ray_visibility_off_renamed", "material_backface_culled", "principled_enum_switch"):
    assert mutations.OPERATORS[name].applicable(ctx) is not None, name
''', encoding="utf-8")
    run_bpy(script, ROOT / "verifiers", scenes["tmp"] / "clean.blend")
    assert json.dumps(CASES)  # the cases stay JSON
