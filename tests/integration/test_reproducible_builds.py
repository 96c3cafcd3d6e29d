"""The same inputs give the same bytes: a seed admitted, built, frozen and published twice (two
stores, two sandboxed Blender processes, seconds apart, two runs' records) is one task package,
one publication.json and one split manifest, and a script applied twice gives one .blend, which
is what makes a task version a function of its inputs (docs/reproducibility.md). Without the frozen clock the same build differs in the
clock-seeded fields, which shows the test can fail."""

from __future__ import annotations

import hashlib
import shutil
import time
from pathlib import Path

import pytest

from activities.admission import AdmissionActivities
from activities.authoring import AuthoringActivities
from activities.datasets import DatasetActivities
from activities.packaging import PackagingActivities
from activities.review import ReviewActivities
from blender.blend_digest import scene_digest, sort_unordered_pairs
from blender.runner import LOCAL, BlenderJob
from contracts.payloads.admission import AdmissionInput
from contracts.digests import pipeline_ref
from contracts.payloads.authoring import AssembleInput, BuildWorkspaceInput
from contracts.payloads.common import DatasetRef
from contracts.payloads.datasets import OpenRevisionInput
from contracts.payloads.packaging import PublishInput
from contracts.payloads.review import FreezeInput
from dataset_revisions.freeze import freeze as freeze_revision
from dataset_revisions.layout import RevisionKeys
from storage.content import FilesystemStore
from storage.objects import FilesystemObjects
from tests.integration.test_dataset_production import light_copy
from tests.unit.test_rerun_consistency import evaluation, publish_reviewed
from verifiers import bpy_procs
from verifiers.seed_check import check_seed_dir

pytestmark = [pytest.mark.blender]

SPEC = {"namespace": "repro", "revision": "r1", "seeds": ["seeds/table-model"], "splits": {"all": 1},
        "max_per_source": 1, "coverage": {"min_groups_per_split": 1, "min_professions_per_split": 1,
                                          "min_sources": 1}}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# What only a run records, and why it may differ between two runs of the same inputs
# (docs/reproducibility.md): these are listed in records.json, never in publication.json.
RUN_RECORDS = {
    "records.json": "the list of the records below, and published_at",
    "admission/admission-record.json": "admitted_at",
    "review/frozen-task.json": "frozen_at, and the calibration report's sha256",
    "review/calibration-report.json": "the store keys of deliveries made by trials on a running clock",
    "review/privacy.json": "the reviewer's decision and reviewed_at",
    "evaluation/evaluation-plan.json": "created_at",
    "evaluation/trials.jsonl": "start and finish times, costs, the deliveries' store keys",
    "evaluation/report.json": "made from the trials",
}


def _published_files(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): sha256(p) for p in sorted(folder.rglob("*")) if p.is_file()}


async def test_a_seed_built_frozen_and_published_twice_is_one_publication(tmp_path, project_root):
    """Stages 02, 03, the freeze of 05 and the packaging of 07 twice: two stores and object
    stores, two admission times, two sandboxed Blender builds a second apart, two runs' records
    (calibration, trials, times). The same workspace bytes, the same task package tree and
    version, byte-identical publication.json and task files, and the same split-manifest bytes
    when each revision freezes; what differs is only RUN_RECORDS. (Stages 04-06 make records;
    that their deliveries score the same is the demo's check, run twice in docs/reproducibility.md.)"""
    seed = light_copy("table-model", tmp_path)  # rule-only: evidence renders are test_evidence's
    runs = []
    for n, when in enumerate(("2026-01-01T00:00:00+00:00", "2026-06-01T12:34:56+00:00")):
        store, objects = FilesystemStore(tmp_path / f"store-{n}"), FilesystemObjects(tmp_path / f"var-{n}")
        admitted = AdmissionActivities(store, project_root).admit_seed(
            AdmissionInput(str(seed), when))  # node materials: clock-seeded ids
        assert admitted.draft is not None
        authoring = AuthoringActivities(store)
        build = await authoring.build_workspace(
            BuildWorkspaceInput(admitted.seed_tree, admitted.reference_project, admitted.start_mode))
        package = authoring.assemble_task_package(
            AssembleInput(admitted.seed_tree, build, admitted.draft, "image-metric"))
        frozen = ReviewActivities(store, objects).freeze_task(FreezeInput(
            package.identity, package.task_package, store.put_json({"calibration": f"run {n}"}),
            package.grading, 0.1, pipeline_ref(project_root).model_dump(), when))
        DatasetActivities(objects, project_root).open_dataset_revision(OpenRevisionInput(SPEC, None, when))
        published = publish_reviewed(PackagingActivities(store, objects), PublishInput(
            "table-model", frozen, evaluation(store, f"run {n}"), admitted.admission_record, when,
            dataset=DatasetRef("repro", "r1")))
        manifest = freeze_revision(objects, RevisionKeys("repro", "r1"), when)
        runs.append((build, package, frozen, Path(published.path), manifest))
        time.sleep(1.1)  # a clock that was not frozen would have moved on
    (build_0, package_0, frozen_0, folder_0, freeze_0), (build_1, package_1, frozen_1, folder_1, freeze_1) = runs
    assert build_0.start_blend.sha256 == build_1.start_blend.sha256
    assert build_0.reference_blend.sha256 == build_1.reference_blend.sha256
    assert package_0.task_package.sha256 == package_1.task_package.sha256
    assert package_0.grading == package_1.grading and package_0.identity == package_1.identity
    assert frozen_0.task_version == frozen_1.task_version
    files_0, files_1 = _published_files(folder_0), _published_files(folder_1)
    assert set(files_0) == set(files_1)
    differ = sorted(rel for rel in files_0 if files_0[rel] != files_1[rel])
    # every run record but the privacy record (this test's reviewer decides alike both times),
    # and never a file of the version
    assert set(differ) == set(RUN_RECORDS) - {"review/privacy.json"}, differ
    assert files_0["publication.json"] == files_1["publication.json"]
    assert freeze_0.manifest_sha256 == freeze_1.manifest_sha256
    assert freeze_0.semantic_digest == freeze_1.semantic_digest


def test_a_reference_solution_applied_twice_is_the_same_bytes(tmp_path, project_root):
    seed = project_root / "seeds" / "table-model"
    start, reference = tmp_path / "start.blend", tmp_path / "reference.blend"
    bpy_procs.build_workspace(seed / check_seed_dir(seed).reference_project, "from_scratch", start, reference)
    solve = seed / "draft" / "solution" / "solve.py"
    outs = [bpy_procs.apply_script(start, solve, tmp_path / f"delivery-{i}.blend") for i in (1, 2)]
    assert sha256(outs[0]) == sha256(outs[1])


SCENE = """
import sys, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.mesh.primitive_cube_add()
mat = bpy.data.materials.new("Paint")
mat.use_nodes = True
for _ in range(4):
    mat.node_tree.nodes.new("ShaderNodeMath")
bpy.context.object.data.materials.append(mat)
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[-1], compress=False)
"""


def _save(tmp_path: Path, name: str, reproducible: bool) -> Path:
    script = tmp_path / "scene.py"
    script.write_text(SCENE)
    job = BlenderJob(LOCAL, reproducible=reproducible)
    out = tmp_path / name
    job.run_blocking(script, [job.output(out, f"/workspace/{name}")], timeout=120)
    return out


def test_the_frozen_clock_is_what_makes_the_bytes_equal(tmp_path):
    free = [_save(tmp_path, f"free-{i}.blend", reproducible=False) for i in (1, 2)]
    frozen = [_save(tmp_path, f"frozen-{i}.blend", reproducible=True) for i in (1, 2)]
    assert sha256(frozen[0]) == sha256(frozen[1])
    assert sha256(free[0]) != sha256(free[1])  # node ids seeded from the running clock
    assert scene_digest(free[0]) == scene_digest(free[1])  # ... and only those differ


def test_canonical_pairs_are_a_fixed_point_and_keep_the_scene(tmp_path):
    original = _save(tmp_path, "free.blend", reproducible=False)
    copy = tmp_path / "copy.blend"
    shutil.copy(original, copy)
    swapped = sort_unordered_pairs(copy)
    assert swapped > 0  # the factory screens' edges, written in allocation order
    assert sort_unordered_pairs(copy) == 0 and scene_digest(copy) == scene_digest(original)
