"""The human review gate's records on the real store (no server): `options.review` checked at
admission by name, the accept carried in the frozen record, the pending record `arkevo review`
reads."""

from __future__ import annotations

import json

import pytest
from temporalio.exceptions import ApplicationError

from activities.admission import AdmissionActivities
from activities.review import ReviewActivities, pending_review_key
from contracts.payloads.common import ProductionOptions
from contracts.payloads.review import FreezeInput, HumanReviewRequest, ReviewDecision
from storage.content import FilesystemStore
from storage.objects import FilesystemObjects
from tests.unit.test_rerun_consistency import PIPELINE_REF, draft_package, grading, identity
from workers.settings import PROJECT_ROOT


@pytest.mark.parametrize("options, field", [(ProductionOptions(review="maybe"), "options.review"),
                                            (ProductionOptions(review="human", review_timeout_sec=0),
                                             "options.review_timeout_sec")])
def test_a_bad_review_option_is_invalid_seed_naming_the_field(tmp_path, options, field):
    with pytest.raises(ApplicationError, match=field) as e:
        AdmissionActivities(FilesystemStore(tmp_path), PROJECT_ROOT).run_plan(options)
    assert e.value.type == "InvalidSeed" and e.value.non_retryable


def test_review_defaults_to_automatic_and_human_keeps_its_timeout(tmp_path):
    admission = AdmissionActivities(FilesystemStore(tmp_path), PROJECT_ROOT)
    assert admission.run_plan(ProductionOptions()).review == "automatic"
    plan = admission.run_plan(ProductionOptions(review="human", review_timeout_sec=60))
    assert (plan.review, plan.review_timeout_sec) == ("human", 60)


def test_the_accept_is_in_the_frozen_record_and_the_pending_record_names_the_workflow(tmp_path):
    store, objects = FilesystemStore(tmp_path / "store"), FilesystemObjects(tmp_path / "var")
    review = ReviewActivities(store, objects)
    package = draft_package(store, tmp_path)
    report = store.put_json({"calibration": "passed"})
    request = HumanReviewRequest("table-model", "p.05-review", "p", report, package, "2026-12-01T00:00:00+00:00", 60)
    where = review.record_human_review(request)
    pending = json.loads(objects.get(pending_review_key("table-model")))
    assert where.endswith("reviews/pending/table-model.json")
    assert (pending["state"], pending["workflow_id"]) == ("waiting", "p.05-review")
    assert pending["evidence"]["calibration_report"] == store.location(report)
    assert (pending["evidence"]["review_site_page"], pending["evidence"]["review_site_build"]) == (
        "reviews/table-model.html", "arkevo site build --pending-reviews --out <DIR>")
    decision = ReviewDecision("accept", "ana", "renders match the brief", "2026-12-01T01:00:00+00:00")
    frozen = review.freeze_task(FreezeInput(identity(), package, report, grading(store, tmp_path), 0.1,
                                            PIPELINE_REF, "2026-12-01T01:00:00+00:00", decision))
    record = json.loads(store.get_bytes(frozen.frozen_record))
    assert record["human_review"] == {"decision": "accept", "by": "ana", "reason": "renders match the brief",
                                      "at": "2026-12-01T01:00:00+00:00"}
