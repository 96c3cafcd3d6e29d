"""A throwaway rule-only task for probe tests: one criterion per case, written as task.json and
rubric.json (the shapes `seeds/*/draft` use), so a test can run the real probe on its scene."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

from sandbox.script_run import LOCAL
from tests.bpy_forks import run_bpy
from verifiers import bpy_procs

# One warm bpy process for the test session (closed by tests/conftest.py as the session ends): a
# fresh rule_probe.py per case spent ~0.85 CPU-s on `import bpy` against ~0.1 s of probing, for
# hundreds of cases, and one per module still ~0.85 CPU-s for each of some 50 modules. Both run
# rule_probe.probe_files; test_blender_calibration shows the packaged test's fresh probe reports
# what the warm probe did, and the trial tests run the fresh one. What it keeps between jobs is
# keyed by the shapes it measured (probe_core.remember; test_probes_solid shows two scenes with
# the same names and other shapes each get their own verdict in one process).
_warm: bpy_procs.WarmProbe | None = None


# The start of a bpy script that builds test scenes (the red-team tests' MAKE): its output folder
# is its last argument; a box (with a "CrateUV" map on request), the file's 3D views, a save, and a
# kept scene to change (prop; a test may define its own).
BPY_SCENE_HELPERS = r'''
import sys
from pathlib import Path

import bpy
import bmesh  # after bpy

out = Path(sys.argv[-1])


def box(name, size, location, uv=False):
    bm = bmesh.new()
    if uv:
        bm.loops.layers.uv.new("CrateUV")
    bmesh.ops.create_cube(bm, size=1.0, calc_uvs=uv)
    bmesh.ops.scale(bm, vec=size, verts=bm.verts)
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new(name, mesh)
    obj.location = location
    bpy.context.scene.collection.objects.link(obj)
    return obj


def fresh():
    """An empty factory scene."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    return bpy.context.scene


def views():
    return [space for screen in bpy.data.screens for area in screen.areas for space in area.spaces
            if space.type == "VIEW_3D"]


def save(name):
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


def prop(name, extra=None):
    """A kept scene: SM_Box with a Wood material (linked to the mesh) and the UV map CrateUV, a
    camera; ``extra(scene, box)`` changes it before the save."""
    scene = fresh()
    obj = box("SM_Box", (0.4, 0.4, 0.4), (0.0, 0.0, 0.2), uv=True)
    mat = bpy.data.materials.new("Wood")
    mat.use_nodes = True
    obj.data.materials.append(mat)
    cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
    scene.collection.objects.link(cam)
    scene.camera = cam
    if extra is not None:
        extra(scene, obj)
    save(name)


def painted(name, extra=None):
    """SM_Box (UV map CrateUV) in the material Paint: an Image Texture of the image Img into the
    Principled BSDF's Base Color, the image node the active one; ``extra(scene, obj, mat)``
    changes it."""
    scene = fresh()
    obj = box("SM_Box", (0.4, 0.4, 0.4), (0.0, 0.0, 0.2), uv=True)
    mat = bpy.data.materials.new("Paint")
    mat.use_nodes = True
    tree = mat.node_tree
    node = tree.nodes.new("ShaderNodeTexImage")
    node.image = bpy.data.images.new("Img", 64, 64)
    tree.links.new(node.outputs["Color"], tree.nodes["Principled BSDF"].inputs["Base Color"])
    tree.nodes.active = node
    obj.data.materials.append(mat)
    if extra is not None:
        extra(scene, obj, mat)
    save(name)
'''

def _shared() -> bpy_procs.WarmProbe:
    global _warm
    if _warm is None:
        _warm = bpy_procs.WarmProbe(sandbox=LOCAL)
    return _warm


def probe_local(blend: Path, task: Path, rubric: Path, out: Path, probes: Path | None = None) -> dict:
    """The rule report of ``blend`` (written to ``out``) from the session's warm, unsandboxed bpy
    process: the tests' own scenes, never a seed's or a solver's."""
    return _shared().probe(Path(blend), Path(task), Path(rubric), Path(out), probes)


@contextlib.contextmanager
def local_probe() -> Iterator[bpy_procs.WarmProbe]:
    """The session's warm, unsandboxed probe for a test's own jobs (``mutate``, ``probe``),
    left running for the next test: the tests' own scenes, never a seed's or a solver's."""
    yield _shared()


def close_local_probe() -> None:
    global _warm
    if _warm is not None:
        _warm.close()
        _warm = None


def write_rule_task(folder: Path, cases: dict[str, tuple[str, dict]], task_id: str, *,
                    start_mode: str | None = None, core: bool = False) -> tuple[Path, Path]:
    """task.json + rubric.json in ``folder`` for ``cases`` {criterion id: (method, params)}: equal
    weights, graded rule-only; returns their paths."""
    criteria = [{"id": cid, "requirement_id": "REQ-CASE", "channel": "rule", "method": method,
                 "weight": 1 / len(cases), "core": core, "description": f"{method} ({cid})"}
                for cid, (method, _) in cases.items()]
    task = {"task_id": task_id, "criteria": criteria,
            "verification": {"weights": {"rule": 1.0, "vl": 0.0, "agent": 0}, "pass_threshold": 0.7,
                             "core_failure_cap": 0.4},
            "scoring_profile": {"profile_id": "rule-only", "profile_version": "1"}}
    if start_mode is not None:
        task["start_mode"] = start_mode
    rubric = {"rubric_version": "1", "criteria": [{"id": cid, "method": method, "params": params}
                                                  for cid, (method, params) in cases.items()]}
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "task.json").write_text(json.dumps(task), encoding="utf-8")
    (folder / "rubric.json").write_text(json.dumps(rubric), encoding="utf-8")
    return folder / "task.json", folder / "rubric.json"


def assert_refused_as_expected(report: dict, refused: dict[str, str], delivery: str) -> None:
    """Each criterion in ``refused`` fails with its detail naming what it names; every other
    criterion of the rule report passes in full (the red-team tests' one verdict).  The report is
    JSON the pipeline can carry (no NaN or infinity: its canonical form refuses them)."""
    json.dumps(report, allow_nan=False)
    for cid, c in {c["id"]: c for c in report["criteria"]}.items():
        assert c.get("error") is None, (cid, c.get("error"))
        if cid in refused:
            assert not c["passed"] and c["score"] < 1, (delivery, cid, c["detail"])
            assert refused[cid] in c["detail"], (delivery, c["detail"])
        else:
            assert c["passed"] and c["score"] == 1, (delivery, cid, c["detail"])


def build_scenes(tmp: Path, make_script: str, cases: dict[str, tuple[str, dict]], task_id: str,
                 start_mode: str) -> dict:
    """Run ``make_script`` (bpy; it writes its .blend files into the folder it is given) in
    ``tmp`` and write the rule task for ``cases`` beside them: {tmp, task, rubric}."""
    script = tmp / "make.py"
    script.write_text(make_script, encoding="utf-8")
    run_bpy(script, tmp)
    task, rubric = write_rule_task(tmp / "task", cases, task_id, start_mode=start_mode)
    return {"tmp": tmp, "task": task, "rubric": rubric}


def build_case_groups(tmp: Path, make_script: str, groups: dict[str, dict[str, tuple[str, dict]]], prefix: str,
                      start_mode: str, start_scene: tuple[str, str] | None = None) -> dict:
    """Run ``make_script`` (bpy) in ``tmp`` and write one rule task per group of cases (each in its
    own folder, named after the group): {tmp, tasks: {group: (task, rubric)}}.  ``start_scene``
    (scene, group): that scene's snapshot is the group's start scene."""
    script = tmp / "make.py"
    script.write_text(make_script, encoding="utf-8")
    run_bpy(script, tmp)
    tasks = {name: write_rule_task(tmp / name, cases, f"{prefix}-{name}", start_mode=start_mode)
             for name, cases in groups.items()}
    if start_scene is not None:
        scene, group = start_scene
        run_bpy(bpy_procs.VERIFIERS / "scene_snapshot.py", "--blend", tmp / f"{scene}.blend",
                "--out", tmp / group / "start_scene.json")
    return {"tmp": tmp, "tasks": tasks}


def probe_case(scenes: dict, group: str, delivery: str) -> dict:
    """The rule report of ``delivery``.blend under the task of ``group`` (``build_case_groups``)."""
    task, rubric = scenes["tasks"][group]
    return probe_local(scenes["tmp"] / f"{delivery}.blend", task, rubric,
                       scenes["tmp"] / f"report-{group}-{delivery}.json")


def assert_operators_killed(rows: list[dict], killed_by: dict[str, set[str]]) -> None:
    """Every operator of ``killed_by`` ran, applied, and failed exactly the criteria named."""
    assert sorted(row["operator"] for row in rows) == sorted(killed_by)
    for row in rows:
        assert row["applicable"] and row["error"] is None, row
        refused = {c["id"] for c in row["criteria"] if not c["passed"]}
        assert refused == killed_by[row["operator"]], (row["operator"], row["criteria"])
