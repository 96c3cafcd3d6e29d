"""The image-metric judge's gate is decided per view (the worst view, not the mean), and a
question whose metric scores the untouched input near 1 is reported uninformative and cannot
lift a failing delivery under any VL-weighted profile (issue 33, point 5). Pure image code and
profile arithmetic on small synthetic renders: no Blender."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from verifiers.profiles import UNINFORMATIVE_AT, get_profile, task_with_profile
from verifiers.vl import image_metric_judge, load_judge_config, metric_value

ROOT = Path(__file__).resolve().parents[2]
TASK = json.loads((ROOT / "seeds" / "table-model" / "draft" / "task.json").read_text())
VIEWS = ("front", "side", "top", "close")
JUDGE = load_judge_config({"judge_version": "1", "questions": [
    {"id": "A", "gate": True, "weight": 0.2, "scale": "binary", "images": ["front.png"], "prompt": "A",
     "metric": {"kind": "silhouette_iou", "views": list(VIEWS), "pass_at": 0.5}},
    {"id": "B", "weight": 0.4, "scale": "0-10", "images": ["front.png"], "prompt": "B",
     "metric": {"kind": "view_similarity", "views": list(VIEWS)}},
    {"id": "C", "weight": 0.4, "scale": "0-10", "images": ["front.png"], "prompt": "C",
     "metric": {"kind": "colour_similarity", "views": list(VIEWS)}}]})


def write(folder: Path, boxes: dict[str, tuple[int, int, int, int]], colour=(150, 90, 50)) -> Path:
    """One 40x30 RGBA render per view, a filled box (x0, y0, x1, y1) on transparent black."""
    folder.mkdir(parents=True, exist_ok=True)
    for view in VIEWS:
        img = np.zeros((30, 40, 4), dtype=np.uint8)
        x0, y0, x1, y1 = boxes.get(view, (10, 5, 30, 25))
        img[y0:y1, x0:x1] = (*colour, 255)
        Image.fromarray(img, "RGBA").save(folder / f"{view}.png")
    return folder


def rule_report(score: float) -> dict:
    """Every rule criterion at `score`, none core-failed (a delivery short of the threshold on
    rule points alone)."""
    return {"blend_sha256": "0" * 64, "criteria": [
        {"id": c["id"], "method": c["method"], "weight": c["weight"], "core": False, "score": score,
         "passed": True, "measured": None, "expected": None, "detail": "", "evidence": None}
        for c in TASK["criteria"] if c["channel"] == "rule"]}


def test_a_delivery_wrong_in_one_view_fails_the_gate_though_the_mean_passes(tmp_path):
    reference = write(tmp_path / "ref", {})
    wrong_in_top = write(tmp_path / "top-wrong", {"top": (0, 0, 4, 4)})  # nothing where the top should be
    mean, per = metric_value(JUDGE.questions[0].metric, wrong_in_top, reference, [])
    assert mean >= 0.5 and per["top.png"] == 0.0  # the old rule (the mean) passed it
    result = image_metric_judge(JUDGE, wrong_in_top, reference, [])
    assert result.answers["A"].score == 0.0 and "worst view top" in result.answers["A"].reason
    assert result.gated and result.vl_score == 0.0
    assert image_metric_judge(JUDGE, reference, reference, []).answers["A"].score == 1.0


def test_per_view_bounds_and_tolerance(tmp_path):
    """``pass_at`` per view, and ``tolerance_px``: an edge a pixel off matches, a missing part
    does not."""
    reference = write(tmp_path / "ref", {})
    thinner = write(tmp_path / "thin", {view: (11, 5, 29, 25) for view in VIEWS})  # 1 px off each side
    shorter = write(tmp_path / "short", {"close": (10, 12, 30, 25)})  # a third missing in one view
    metric = {"kind": "silhouette_iou", "views": list(VIEWS), "tolerance_px": 2,
              "pass_at": {"front": 0.95, "side": 0.95, "top": 0.95, "close": 0.95}}
    config = load_judge_config({**JUDGE.raw, "questions": [{**JUDGE.raw["questions"][0], "metric": metric},
                                                           *JUDGE.raw["questions"][1:]]})
    assert metric_value({**metric, "tolerance_px": 0}, thinner, reference, [])[0] < 0.95  # plain IoU 0.9
    assert image_metric_judge(config, thinner, reference, []).answers["A"].score == 1.0
    answer = image_metric_judge(config, shorter, reference, []).answers["A"]
    assert answer.score == 0.0 and "worst view close" in answer.reason


@pytest.mark.parametrize("profile_key", ["blender-70-30@2", "kuka-80-20@1"])
def test_an_uninformative_metric_cannot_lift_a_failing_delivery(tmp_path, profile_key):
    """Every metric scores the untouched input (= the reference renders: a task that must keep
    the scene) 1: uninformative. A delivery whose rule score alone fails (0.6) reaches the
    threshold with VL 1 when the metric is believed; it cannot once it is known to be
    uninformative, whether the judge flags it or calibration recorded it."""
    profile = get_profile(profile_key)
    task = task_with_profile(TASK, profile)
    reference = write(tmp_path / "ref", {})
    untouched = write(tmp_path / "input", {})
    vl = image_metric_judge(JUDGE, reference, reference, [], input_dir=untouched)
    assert all(a.uninformative and a.input_score == 1.0 for a in vl.answers.values())
    assert "uninformative" in vl.answers["B"].reason
    report = rule_report(0.6)
    believed = profile.score(report, image_metric_judge(JUDGE, reference, reference, []), task)
    flagged = profile.score(report, vl, task)
    params = profile.calibrate_params(
        [("reference", rule_report(1.0), image_metric_judge(JUDGE, reference, reference, [])),
         ("input", rule_report(0.2), image_metric_judge(JUDGE, untouched, reference, []))], task, 0.2)
    assert params["uninformative_vl"] == {"A": 1.0, "B": 1.0, "C": 1.0}
    recorded = profile.score(report, image_metric_judge(JUDGE, reference, reference, []), task, params)
    assert believed["total"] > 0.6  # the VL channel lifted the total above the rule score
    for scored in (flagged, recorded):
        assert scored["total"] <= 0.6 + 1e-9 and not scored["success"]
        assert scored["vl_score"] == 0.6 and scored["vl_score_judged"] == 1.0
        assert set(scored["vl_uninformative"]) == {"A", "B", "C"}
    # a delivery the rule channel passes keeps its full score
    good = profile.score(rule_report(1.0), vl, task)
    assert good["total"] == 1.0 and good["success"]


def test_an_informative_metric_still_counts(tmp_path):
    """The input is far from the reference: nothing is uninformative, the VL score is the judge's."""
    profile = get_profile("blender-70-30@2")
    reference = write(tmp_path / "ref", {})
    empty = write(tmp_path / "input", {view: (0, 0, 0, 0) for view in VIEWS})
    vl = image_metric_judge(JUDGE, reference, reference, [], input_dir=empty)
    assert not any(a.uninformative for a in vl.answers.values())
    assert all(a.input_score is not None and a.input_score < UNINFORMATIVE_AT for a in vl.answers.values())
    scored = profile.score(rule_report(0.6), vl, task_with_profile(TASK, profile))
    assert scored["vl_score"] == 1.0 and "vl_uninformative" not in scored
