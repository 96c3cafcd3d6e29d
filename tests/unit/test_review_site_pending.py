"""The review site's evidence page of a task waiting for a human review decision, on the real
store (no Blender, no server): the pending record written by stage 05's own activity
(`record_human_review`) over a real task package tree and a real calibration report with
delivery records and render trees; decided records listed; missing evidence named."""

from __future__ import annotations

import json
import re
from html import escape

import pytest

from activities.review import ReviewActivities, pending_review_key
from cli.arkevo import main
from contracts.payloads.review import HumanReviewRequest, ReviewDecision
from review_site.build import build_site
from review_site.sources import SiteSourceError, Source
from storage.content import FilesystemStore
from storage.objects import FilesystemObjects
from tests.site_support.publications import _renders, frozen_revision
from tests.unit.test_rerun_consistency import ROOT, draft_package

SAMPLES = (("reference", "reference", "oracle", 1.0, "total >= 0.9 and success", True),
           ("input", "input", "nop", 0.2, "not success and total <= 0.4", True),
           ("defect:short_legs", "defect", "script:short_legs.py", 0.35, "not success and total <= 0.4", True),
           ("variant:walnut", "variant", "script:walnut.py", 0.62, "total >= 0.7 and success", False))

JUDGE = {"id": "image-metric@1", "kind": "offline-metric",
         "label": "offline image-metric judge (similarity to the reference renders) - not a model result"}


@pytest.fixture
def source(tmp_path, monkeypatch) -> Source:
    """The workers' store in ARKEVO_VAR (what `arkevo site build` reads), empty."""
    (var := tmp_path / "var").mkdir()
    for name in ("ARKEVO_STORE", "ARKEVO_OBJECTS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ARKEVO_VAR", str(var))
    return Source(FilesystemObjects(var), FilesystemStore(var / "store"))


def calibration_report(store, tmp_path) -> dict:
    """Stage 05's calibration report (activities/review.judge_calibration's fields): each
    sample with its delivery report, VL answers and renders in the store."""
    rows = []
    for name, kind, policy, reward, expected, met in SAMPLES:
        criteria = [{"id": "C01", "passed": reward >= 0.7, "score": reward, "measured": 1.2 * reward,
                     "expected": 1.2, "detail": f"{name}: table width"}]
        renders = _renders(store, tmp_path, (int(200 * reward), 90, 60), f"calibration-{kind}")
        rows.append({
            "sample": name, "kind": kind, "policy": policy, "rule_score": reward, "vl_score": reward,
            "reward": reward, "success": reward >= 0.7, "cap_applied": None, "expected": expected,
            "met": met, "margin": 0.27, "failure": None, "trial_stage": "calibration", "cost": None,
            "delivery": None, "report": store.put_json({"criteria": criteria, "rule_score": reward}).as_dict(),
            "vl": store.put_json({"vl_score": reward, "judge": JUDGE, "missing_reason": None,
                                  "answers": {"A": {"id": "A", "score": reward, "reason": f"{name} silhouette", "raw": "{}", "error": None}}}
                                 ).as_dict(),
            "renders": renders.as_dict(), "criteria": criteria})
    return {"task_id": "table-model", "scoring_profile": {"profile_id": "blender-70-30", "profile_version": "2"},
            "profile_params": {}, "judge": "image-metric", "verifier_version": "vv2-00000000000000aa",
            "pass_threshold": 0.7, "reference_min": 0.9, "required_margin": 0.2, "margin": 0.27,
            "min_good": 0.62, "max_bad": 0.35, "passed": False,
            "misses": ["variant:walnut: expected total >= 0.7 and success, got 0.620"],
            "samples": rows, "mutations": None, "gaming": None}


def waiting(source: Source, tmp_path) -> HumanReviewRequest:
    """table-model waiting for review, its record written by stage 05's activity."""
    package = draft_package(source.store, tmp_path)
    report = source.store.put_json(calibration_report(source.store, tmp_path))
    request = HumanReviewRequest("table-model", "dataset-rv-r1.table-model.05-review", "dataset-rv-r1.table-model",
                                 report, package, "2026-12-01T00:00:00+00:00", 86400)
    ReviewActivities(source.store, source.objects).record_human_review(request)
    return request


def _refs(html: str) -> list[str]:
    return [r for r in re.findall(r'(?:src|href)="([^"#]+)"', html) if not r.startswith(("http", "mailto"))]


def test_a_waiting_task_has_an_evidence_page_from_what_stage_05_holds(source, tmp_path):
    waiting(source, tmp_path)
    out = tmp_path / "site"
    result = build_site(source, out, pending_reviews=True)
    assert (result.tasks, result.reviews, result.waiting) == (0, 1, 1)
    record = json.loads(source.objects.get(pending_review_key("table-model")))
    page = out / record["evidence"]["review_site_page"]  # the page the pending record names
    html = page.read_text()
    assert "Waiting for a human review decision" in html and "dataset-rv-r1.table-model.05-review" in html
    assert "arkevo review accept table-model" in html and "arkevo review reject table-model" in html
    assert "Dining table for our furniture catalogue" in html  # the package's instruction.md
    instruction = (ROOT / "seeds" / "table-model" / "draft" / "instruction.md").read_text()
    assert instruction.splitlines()[2] in html
    # every calibration sample: its row (kind, expected) and its own page with criteria and VL answers
    for name, kind, _, reward, expected, _ in SAMPLES:
        assert f">{name}</a></td><td>{kind}</td>" in html and f"<code>{escape(expected)}</code>" in html
        assert f"{reward:.3f}" in html
        sample = (out / "reviews" / "table-model" / f"calibration-{name.replace(':', '-')}.html").read_text()
        assert f"{name}: table width" in sample and f"{name} silhouette" in sample
    assert "variant:walnut: expected total &gt;= 0.7 and success, got 0.620" in html  # the miss
    # the grading (from the calibration report: nothing is frozen yet), the package listing
    assert "blender-70-30@2" in html and "vv2-00000000000000aa" in html
    for path in ("task/instruction.md", "task/tests/task.json", "task/environment/workspace/inputs/start.blend",
                 "private/reference.blend", "review/calibration-report.json"):
        assert f"<code>{path}</code>" in html
    # the reference renders and each other sample's delivery renders, copied into the site
    evidence = html.split('<section id="evidence">')[1].split("</section>")[0]
    assert "calibration input (input)" in evidence and "calibration defect:short_legs (defect)" in evidence
    assert evidence.count("<img") == 4 * len(SAMPLES)
    for p in out.rglob("*.html"):
        for ref in _refs(p.read_text()):
            assert (p.parent / ref).resolve().is_file(), f"{p}: {ref} missing"
    index = (out / "index.html").read_text()
    assert 'href="reviews/table-model.html"' in index and 'data-state="waiting"' in index
    assert "not yet: waiting for the review decision" in html and "arkevo export" not in html


def test_a_decided_review_is_listed_with_its_decision_and_has_no_page(source, tmp_path):
    request = waiting(source, tmp_path)
    request.state = "rejected"
    request.decision = ReviewDecision("reject", "ana", "the handle is missing", "2026-12-01T02:00:00+00:00")
    ReviewActivities(source.store, source.objects).record_human_review(request)
    out = tmp_path / "site"
    result = build_site(source, out, pending_reviews=True)
    assert (result.reviews, result.waiting) == (1, 0)
    index = (out / "index.html").read_text()
    assert 'data-state="rejected"' in index
    assert "reject by ana at 2026-12-01T02:00:00+00:00: the handle is missing" in index
    assert not (out / "reviews" / "table-model.html").exists()


def test_a_dataset_site_shows_reviews_only_when_asked(source, tmp_path):
    frozen_revision(source, tmp_path)
    waiting(source, tmp_path)
    plain = build_site(source, tmp_path / "plain", dataset=("rv", "r1"))
    assert plain.reviews == 0 and 'id="reviews"' not in (tmp_path / "plain" / "index.html").read_text()
    both = build_site(source, tmp_path / "both", dataset=("rv", "r1"), pending_reviews=True)
    assert (both.tasks, both.waiting) == (2, 1)
    assert (tmp_path / "both" / "tasks" / "table-model.html").is_file()  # the published one, untouched
    assert (tmp_path / "both" / "reviews" / "table-model.html").is_file()


def test_a_record_whose_evidence_is_missing_is_named(source, tmp_path, capsys):
    request = waiting(source, tmp_path)
    (source.store.root / request.calibration_report.key).unlink()
    with pytest.raises(SiteSourceError, match=r"reviews/pending/table-model\.json: its calibration_report .* "
                                               r"is not in the content store") as e:
        build_site(source, tmp_path / "site", pending_reviews=True)
    assert "waiting task" in str(e.value)
    assert main(["site", "build", "--pending-reviews", "--out", str(tmp_path / "cli-site")]) == 2
    assert "reviews/pending/table-model.json" in capsys.readouterr().err.replace("\n", "")


def test_the_cli_builds_the_pending_reviews_alone_and_refuses_nothing_to_show(source, tmp_path, capsys):
    assert main(["site", "build", "--pending-reviews", "--out", str(tmp_path / "empty")]) == 2
    assert "no human review record" in capsys.readouterr().err.replace("\n", "")
    assert main(["site", "build", "--out", str(tmp_path / "none")]) == 2
    waiting(source, tmp_path)
    assert main(["site", "build", "--pending-reviews", "--out", str(tmp_path / "site")]) == 0
    assert "1 human review(s) (1 waiting)" in capsys.readouterr().out.replace("\n", " ")
    assert (tmp_path / "site" / "reviews" / "table-model.html").is_file()
