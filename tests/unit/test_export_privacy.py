"""The export checkpoint (docs/privacy.md) on the real packaging activities and real files: a
secret planted in a file that only the publication carries is caught and named; files no
scanner could read are never published without a reviewer's approval of exactly those, and the
approval ships in the publication."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from temporalio.exceptions import ApplicationError

from activities.packaging import PackagingActivities
from contracts.payloads.packaging import PrivacyReview, PublishInput
from storage.content import FilesystemStore
from storage.objects import FilesystemObjects
from tests.unit.test_rerun_consistency import draft_package, evaluation, freeze

NOW = "2026-11-30T10:00:00+00:00"


@pytest.fixture
def store(tmp_path) -> FilesystemStore:  # the session's store would start Temporal
    return FilesystemStore(tmp_path / "store")


def request(store, tmp_path, package) -> PublishInput:
    frozen = freeze(store, tmp_path, package, "c", NOW)
    return PublishInput("table-model", frozen, evaluation(store, "run-1"), store.put_json({"admission": 1}), NOW)


def test_a_secret_only_the_publication_carries_is_caught_and_named(store, tmp_path):
    package = draft_package(store, tmp_path)
    files = store.tree_entries(package)
    solve = tmp_path / "solve.py"
    key = "AKIA" + "QX7LMN2PRS4TUV6W"  # assembled here so this file holds no key
    solve.write_text(f"import bpy\n# deploy with {key}\n")
    ref = store.put_file(solve)
    files["solution/solve.py"] = {"sha256": ref.sha256, "size": ref.size}
    req = request(store, tmp_path, store.put_tree_manifest(files))
    packaging = PackagingActivities(store, FilesystemObjects(tmp_path / "var"))
    with pytest.raises(ApplicationError) as e:
        packaging.scan_export(req)
    assert e.value.type == "PrivacyFinding" and e.value.non_retryable
    assert "privacy finding in task/solution/solve.py:2:" in str(e.value)
    assert key not in str(e.value)  # redacted
    with pytest.raises(ApplicationError, match="task/solution/solve.py:2:"):
        packaging.publish_task(req)  # publish scans again: no way around the checkpoint
    assert not (tmp_path / "var" / "publications").exists()


def test_coverage_pending_needs_a_reviewers_approval_which_ships_with_the_publication(store, tmp_path):
    req = request(store, tmp_path, draft_package(store, tmp_path))
    packaging = PackagingActivities(store, FilesystemObjects(tmp_path / "var"))
    scan = packaging.scan_export(req)
    assert {p.file for p in scan.pending} == {"private/reference.blend", "task/environment/workspace/inputs/start.blend",
                                             "task/tests/reference_evidence/front.png"}
    with pytest.raises(ApplicationError, match="coverage pending without a reviewer's approval") as e:
        packaging.publish_task(req)
    assert e.value.type == "PrivacyCoverageRejected"
    partial = PrivacyReview(True, "ana", "", scan.pending[:1], NOW)
    with pytest.raises(ApplicationError, match="coverage pending"):
        packaging.publish_task(dataclasses.replace(req, privacy_review=partial))
    rejected = PrivacyReview(False, "ana", "unknown scan", scan.pending, NOW)
    with pytest.raises(ApplicationError, match="coverage pending"):
        packaging.publish_task(dataclasses.replace(req, privacy_review=rejected))
    assert not (tmp_path / "var" / "publications").exists()

    review = PrivacyReview(True, "ana", "stand-ins of a unit test", scan.pending, NOW)
    result = packaging.publish_task(dataclasses.replace(req, privacy_review=review))
    record = json.loads((Path(result.path) / "review" / "privacy.json").read_text())
    assert record["review"]["reviewer"] == "ana" and record["review"]["approved"]
    assert record["export"]["checkpoint"] == "export" and record["export"]["findings"] == []
    assert len(record["pending"]) == 3
