"""Reruns stay consistent (issue 7, point 6), on the real store and real files, no Blender:

* the handoff event is written at least once, even when the activity died after the
  publication's rename and before the event;
* a rerun that reaches the same frozen version gets the frozen record the first run wrote —
  with that run's calibration report and grading, never another run's;
* the packaged `task/` tree of one frozen task is byte-identical across reruns.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from activities.packaging import PackagingActivities
from activities.review import ReviewActivities, frozen_record_key
from storage.content import FilesystemStore
from storage.objects import FilesystemObjects
from contracts.payloads.authoring import GradingSpec, TaskIdentity
from contracts.payloads.evaluation import EvaluationResult
from contracts.payloads.packaging import PrivacyReview, PublishInput
from contracts.payloads.review import FreezeInput

ROOT = Path(__file__).resolve().parents[2]
PIPELINE_REF = {"pipeline_id": "arkevo-blender", "pipeline_version": "0.1.0",
                "pipeline_digest": "d" * 64}


@pytest.fixture
def store(tmp_path) -> FilesystemStore:
    return FilesystemStore(tmp_path / "store")


def draft_package(store: FilesystemStore, tmp_path: Path):
    """A small task package (table-model's draft files, stand-in .blend bytes)."""
    draft = ROOT / "seeds" / "table-model" / "draft"
    src = tmp_path / "package"
    for rel, source in (("instruction.md", draft / "instruction.md"),
                        ("tests/task.json", draft / "task.json"),
                        ("tests/rubric.json", draft / "rubric.json"),
                        ("solution/solve.py", draft / "solution" / "solve.py")):
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_bytes(source.read_bytes())
    (src / "workspace/inputs").mkdir(parents=True)
    (src / "workspace/inputs/start.blend").write_bytes(b"BLENDER-v502 stand-in")
    (src / "private").mkdir()
    (src / "private/reference.blend").write_bytes(b"BLENDER-v502 reference stand-in")
    return store.put_tree(src)


def grading(store: FilesystemStore, tmp_path: Path) -> GradingSpec:
    renders = tmp_path / "reference-renders"
    renders.mkdir(exist_ok=True)
    (renders / "front.png").write_bytes(b"\x89PNG stand-in")
    (renders / "manifest.json").write_text("{}")
    return GradingSpec("table-model", {"profile_id": "blender-70-30", "profile_version": "1"},
                       {}, {"weights": {"rule": 0.7, "vl": 0.3, "agent": 0},
                            "pass_threshold": 0.7, "core_failure_cap": 0.4},
                       True, "image-metric",
                       store.put_file(ROOT / "seeds" / "table-model" / "draft" / "judge.json"),
                       "b" * 64, "vv2-00000000000000aa", store.put_tree(renders))


def identity() -> TaskIdentity:
    return TaskIdentity("table-model", "draft", "vv2-00000000000000aa", "", "MOD-01", "PRF-3DART")


def freeze(store, tmp_path, package, report_text: str, frozen_at: str, input_reward=0.1):
    review = ReviewActivities(store, FilesystemObjects(tmp_path))
    report = store.put_json({"calibration": report_text})
    return review.freeze_task(FreezeInput(identity(), package, report, grading(store, tmp_path), input_reward,
                                          PIPELINE_REF, frozen_at))


def evaluation(store, run: str) -> EvaluationResult:
    return EvaluationResult(store.put_json({"plan": run}), store.put_bytes(f"{run}\n".encode()),
                            store.put_json({"report": run}), [])


def publish_reviewed(packaging: PackagingActivities, req: PublishInput):
    """What the Packaging workflow does: the export scan, then — the stand-in .blend and PNG
    bytes being unreadable, hence coverage_pending — a reviewer's approval of exactly those."""
    scan = packaging.scan_export(req)
    assert scan.pending  # nothing read them at dispatch here
    review = PrivacyReview(True, "test reviewer", "stand-in bytes", scan.pending, "2026-11-30T10:00:00+00:00")
    return packaging.publish_task(dataclasses.replace(req, privacy_review=review))


def publish(store, tmp_path, frozen, run: str):
    packaging = PackagingActivities(store, FilesystemObjects(tmp_path))
    return publish_reviewed(packaging, PublishInput(
        "table-model", frozen, evaluation(store, run), store.put_json({"admission": 1}),
        "2026-11-30T10:00:00+00:00"))


def test_a_rerun_never_pairs_the_frozen_task_with_another_runs_calibration(store, tmp_path):
    package = draft_package(store, tmp_path)
    first = freeze(store, tmp_path, package, "first run", "2026-11-30T10:00:00+00:00")
    second = freeze(store, tmp_path, package, "second run", "2026-11-30T11:00:00+00:00", 0.3)
    assert second.task_version == first.task_version
    assert second.calibration_report == first.calibration_report  # the standing record's
    assert store.get_json(second.calibration_report) == {"calibration": "first run"}
    assert second.input_reward == first.input_reward == 0.1
    assert second.grading == first.grading and second.identity.task_version == first.task_version
    record = json.loads(FilesystemObjects(tmp_path).get(frozen_record_key("table-model", first.task_version)))
    assert record["calibration_report"]["sha256"] == first.calibration_report.sha256


def test_two_workers_sharing_only_an_s3_store_keep_the_first_frozen_record(tmp_path, s3_client, s3_bucket):
    """Two cpu workers with their own disks and one S3 bucket: the second freeze of the same
    version finds the first record (a conditional, create-only write), not its own."""
    from storage.s3 import S3Objects

    store = FilesystemStore(tmp_path / "store")
    package = draft_package(store, tmp_path)
    workers = [ReviewActivities(store, S3Objects(s3_bucket, "var", s3_client)) for _ in range(2)]
    args = [(f"run {n}", f"2026-11-30T1{n}:00:00+00:00", 0.1 * (n + 1)) for n in range(2)]
    frozen = [w.freeze_task(FreezeInput(identity(), package, store.put_json({"calibration": text}),
                                        grading(store, tmp_path), reward, PIPELINE_REF, at))
              for w, (text, at, reward) in zip(workers, args)]
    assert frozen[0].task_version == frozen[1].task_version
    assert frozen[1].calibration_report == frozen[0].calibration_report
    assert frozen[1].input_reward == frozen[0].input_reward == 0.1
    keys = S3Objects(s3_bucket, "var", s3_client).list("tasks/")
    assert keys == [frozen_record_key("table-model", frozen[0].task_version)]


def test_the_handoff_event_is_written_at_least_once(store, tmp_path):
    frozen = freeze(store, tmp_path, draft_package(store, tmp_path), "c", "2026-11-30T10:00:00+00:00")
    first = publish(store, tmp_path, frozen, "run-1")
    event = Path(first.handoff_event)
    assert event.is_file()
    event.unlink()  # the activity died after the rename, before the event was written
    retried = publish(store, tmp_path, frozen, "run-1")  # Temporal retries the same input
    assert retried.publication_id == first.publication_id  # no second revision
    assert Path(retried.handoff_event).is_file()
    assert json.loads(Path(retried.handoff_event).read_text())["publication"]["publication_id"] == \
        first.publication_id
    events = list((tmp_path / "handoff" / "publication").glob("*.json"))
    assert len(events) == 1


def test_the_packaged_task_tree_is_byte_identical_across_reruns(store, tmp_path):
    package = draft_package(store, tmp_path)
    frozen = freeze(store, tmp_path, package, "c", "2026-11-30T10:00:00+00:00")
    first = publish(store, tmp_path, frozen, "run-1")
    rerun = dataclasses.replace(freeze(store, tmp_path, package, "c2", "2026-11-30T12:00:00+00:00"))
    second = publish(store, tmp_path, rerun, "run-2")  # other evaluation: a new revision
    assert second.publication_id != first.publication_id

    def task_files(path: str) -> dict[str, str]:
        files = json.loads((Path(path) / "publication.json").read_text())["files"]
        return {f["path"]: f["sha256"] for f in files if f["path"].startswith("task/")}

    assert task_files(first.path) and task_files(first.path) == task_files(second.path)
    # a VL-weighted publication grades offline as the pipeline did (verifiers/packaged_grade.py)
    assert {"task/tests/grading.json", "task/tests/packaged_grade.py", "task/tests/verifiers/vl.py",
            "task/tests/reference_evidence/front.png"} <= set(task_files(first.path))
