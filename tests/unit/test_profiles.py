"""Scoring profiles, the A-gate, verifier versions and the standalone probe file list (no Blender)."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest

from verifiers import colour_math, scoring
from verifiers.profiles import (
    CAP_LADDER, REGISTRY, ScoringProfileMismatch, aggregate, check_task_profile, get_profile, profile_of_task,
    score_record, task_with_profile,
)
from verifiers.version import (PROBE_FILES, REWARDKIT_FILES, VERIFIERS, scoring_verifier_basis,
                               scoring_verifier_version, verifier_version_from)
from verifiers.vl import Answer, combine, load_judge_config

ROOT = Path(__file__).resolve().parents[2]
TASK = json.loads((ROOT / "seeds" / "table-model" / "draft" / "task.json").read_text())
RUBRIC = json.loads((ROOT / "seeds" / "table-model" / "draft" / "rubric.json").read_text())
JUDGE = load_judge_config(ROOT / "seeds" / "table-model" / "draft" / "judge.json")
MODEL = {"id": "model:fake", "kind": "model"}


def crit(cid: str, weight: float, score: float, core: bool = False, passed: bool | None = None) -> dict:
    return {"id": cid, "method": "m", "weight": weight, "score": score, "core": core,
            "passed": score == 1.0 if passed is None else passed, "measured": None, "expected": None,
            "detail": "", "evidence": None}


def report(*criteria) -> dict:
    return {"blend_sha256": "ab" * 32, "criteria": list(criteria)}


GOOD = report(crit("C01", 0.5, 1.0, core=True), crit("C02", 0.5, 1.0))
PARTIAL = report(crit("C01", 0.5, 1.0, core=True), crit("C02", 0.5, 0.6))
CORE_FAIL = report(crit("C01", 0.5, 0.0, core=True), crit("C02", 0.5, 1.0))


def vl(a: float | None, b: float | None, c: float | None, judge: dict = MODEL):
    answers = {q: Answer(q, s, error=None if s is not None else "unparsable answer") for q, s in zip("ABC", (a, b, c))}
    return combine(JUDGE, answers, judge)


# --- registry ---------------------------------------------------------------------------------


def test_registry_holds_the_three_profiles_versioned():
    assert {p.key for p in REGISTRY.values()} >= {"rule-only@1", "blender-70-30@1", "blender-70-30@2",
                                                 "kuka-80-20@1"}
    assert get_profile("blender-70-30").key == "blender-70-30@2"
    assert get_profile("kuka-80-20@1") is get_profile("kuka-80-20", "1")
    assert profile_of_task(TASK).key == "blender-70-30@2"  # table-model: the seeds' 70/30 scheme
    with pytest.raises(KeyError, match="unknown scoring profile nope"):
        get_profile("nope")
    with pytest.raises(KeyError):
        get_profile("blender-70-30", "9")


def test_task_with_profile_is_a_copy_with_the_profile_weights():
    t = task_with_profile(TASK, get_profile("kuka-80-20"))
    assert t["scoring_profile"] == {"profile_id": "kuka-80-20", "profile_version": "1"}
    assert t["verification"]["weights"] == {"rule": 0.8, "vl": 0.2, "agent": 0}
    assert t["verification"]["pass_threshold"] == TASK["verification"]["pass_threshold"]
    assert TASK["scoring_profile"]["profile_id"] == "blender-70-30"  # the seed's task is untouched
    assert check_task_profile(t).key == "kuka-80-20@1"
    bad = dict(t, verification={**t["verification"], "weights": {"rule": 1.0, "vl": 0.0, "agent": 0}})
    with pytest.raises(ScoringProfileMismatch, match="weights"):
        check_task_profile(bad)


# --- rule-only ----------------------------------------------------------------------------------


@pytest.mark.parametrize("rep", [GOOD, PARTIAL, CORE_FAIL])
def test_rule_only_agrees_with_the_probe_scoring(rep):
    rule_only = task_with_profile(TASK, get_profile("rule-only"))
    rec = get_profile("rule-only").score(rep, None, rule_only)
    expected = scoring.summarize(rep["criteria"], rule_only["verification"])
    assert rec["total"] == expected["reward"] and rec["success"] == expected["success"]
    assert rec["core_failed"] == expected["core_failed"]


# --- blender-70-30 --------------------------------------------------------------------------------


def test_blender_70_30_adds_rule_and_vl_points():
    rec = get_profile("blender-70-30").score(PARTIAL, vl(1, 0.5, 1.0), TASK)
    assert rec["rule_points"] == 56.0  # 70 * 0.8
    assert rec["vl_points"] == 24.0  # 30 * (0.2 + 0.4*0.5 + 0.4)
    assert rec["total"] == 0.8 and rec["total_points"] == 80.0 and rec["success"] is True


def test_a_gate_zero_forces_vl_zero_even_with_other_answers_missing():
    result = vl(0, None, 1.0)
    assert result.vl_score == 0.0 and result.gated and result.missing_reason is None
    rec = get_profile("blender-70-30").score(GOOD, result, TASK)
    assert rec["vl_points"] == 0.0 and rec["total"] == 0.7 and rec["vl_gated"] is True


def test_missing_vl_makes_the_total_null_with_the_reason():
    result = vl(1, None, 1.0)
    assert result.vl_score is None and "question B: unparsable answer" in result.missing_reason
    for pid in ("blender-70-30", "kuka-80-20"):
        rec = get_profile(pid).score(GOOD, result, TASK)
        assert rec["total"] is None and "question B" in rec["total_null_reason"]
    rec = get_profile("blender-70-30").score(GOOD, None, TASK)
    assert rec["total"] is None and rec["total_null_reason"] == "VL not judged" and rec["success"] is False


def test_blender_70_30_caps_a_core_failure_and_checks_its_ranges():
    rec = get_profile("blender-70-30").score(CORE_FAIL, vl(1, 1, 1), TASK)
    assert rec["total"] == 0.4 and rec["cap_applied"] == 0.4 and rec["success"] is False
    with pytest.raises(ValueError, match="rule points"):
        get_profile("blender-70-30").score(report(crit("C01", 1.0, 1.5)), vl(1, 1, 1), TASK)


# --- kuka-80-20 ---------------------------------------------------------------------------------


def test_rule_full_marks_with_a_failed_gate_succeed_in_no_profile_that_weights_vl():
    """The 70/30 hole: weight 0.7 = pass_threshold, so rule 1.0 alone reached the threshold while
    the renders showed nothing the task asked for. Every profile a task may name now refuses it."""
    usable = [p for p in REGISTRY.values() if p.uses_vl and not p.retired_by]
    assert {p.key for p in usable} >= {"blender-70-30@2", "kuka-80-20@1"}
    for p in usable:
        task = task_with_profile(TASK, p)
        gated = p.score(GOOD, vl(0, 1, 1), task)
        assert gated["rule_score"] == 1.0 and gated["success"] is False, p.key
        assert p.score(GOOD, vl(1, 1, 1), task)["success"] is True, p.key  # the same, gate passed
    old = get_profile("blender-70-30@1")  # retired: kept only so its old records still read
    assert old.score(GOOD, vl(0, 1, 1), task_with_profile(TASK, old))["success"] is True
    with pytest.raises(ScoringProfileMismatch, match="retired.*blender-70-30@2"):
        check_task_profile(task_with_profile(TASK, old))


def test_kuka_weights_and_calibrated_caps():
    kuka = get_profile("kuka-80-20")
    assert kuka.score(PARTIAL, vl(1, 1, 1), TASK)["total"] == 0.84
    rec = kuka.score(CORE_FAIL, vl(1, 1, 1), TASK, {"core_caps": {"C01": 0.25}})
    assert rec["total"] == 0.25 and rec["cap_applied"] == 0.25
    # a core criterion without a calibrated cap falls back to the task's core_failure_cap
    assert kuka.score(CORE_FAIL, vl(1, 1, 1), TASK)["total"] == 0.4


def test_kuka_success_is_decided_apart_from_the_total():
    kuka = get_profile("kuka-80-20")
    pending = kuka.score(GOOD, None, TASK)  # VL not judged yet: total null, success still decided
    assert pending["total"] is None and pending["success"] is True and pending["key_deliverables_ok"]
    low_quality = kuka.score(PARTIAL, vl(1, 1, 1), TASK, {"quality_threshold": 0.9})
    assert low_quality["total"] == 0.84 and low_quality["success"] is False  # reward high, not a success
    assert kuka.score(GOOD, vl(0, 1, 1), TASK)["success"] is False  # the gate said: not the thing


def test_kuka_calibration_picks_caps_from_the_ladder():
    kuka = get_profile("kuka-80-20")
    samples = [("reference", GOOD, vl(1, 1, 1)), ("variant", PARTIAL, vl(1, 0.5, 0.5)),
               ("defect", CORE_FAIL, vl(1, 1, 1))]
    params = kuka.calibrate_params(samples, TASK, margin=0.2)
    # lowest good 0.8*0.8 + 0.2*0.6 = 0.76 -> bound 0.56; the task cap 0.4 is below it
    assert params["core_caps"] == {"C01": 0.4}
    tight = kuka.calibrate_params(samples, TASK, margin=0.45)  # bound 0.31 -> 0.25 from the ladder
    assert tight["core_caps"] == {"C01": 0.25} and 0.25 in CAP_LADDER


# --- records and aggregation ----------------------------------------------------------------------


def record(profile="blender-70-30", vv="vv2-a", judge=MODEL, rep=GOOD, answers=(1, 1, 1)):
    p = get_profile(profile)
    return score_record(p, rep, vl(*answers, judge=judge), task_with_profile(TASK, p), verifier_version=vv)


def test_every_record_carries_verifier_version_profile_and_judge():
    rec = record()
    assert rec["verifier_version"] == "vv2-a"
    assert rec["profile"] == {"profile_id": "blender-70-30", "profile_version": "2"}
    assert rec["judge"] == MODEL and rec["vl"]["answers"]["A"]["score"] == 1
    assert record(profile="rule-only")["judge"] is None  # rule-only does not use the judge


def test_aggregate_one_profile_counts_null_totals_apart():
    recs = [record(), record(rep=PARTIAL), record(answers=(1, None, 1))]
    agg = aggregate(recs)
    assert agg["records"] == 3 and agg["scored"] == 2 and agg["null_totals"] == 1
    assert agg["mean_total"] == pytest.approx((1.0 + 0.86) / 2)


@pytest.mark.parametrize("other, what", [
    (dict(profile="kuka-80-20"), "scoring profiles"),
    (dict(vv="vv2-b"), "verifier versions"),
    (dict(judge={"id": "image-metric@1", "kind": "offline-metric"}), "judges"),
])
def test_aggregating_across_profiles_versions_or_judges_raises(other, what):
    with pytest.raises(ScoringProfileMismatch, match=what):
        aggregate([record(), record(**other)])


# --- verifier version -----------------------------------------------------------------------------


def test_scoring_verifier_version_covers_probe_rubric_profile_renderer_and_judge():
    base = dict(task=TASK, rubric=RUBRIC, profile_ref={"profile_id": "blender-70-30", "profile_version": "1"},
                renderer="r1", judge_config=JUDGE.raw, probe_files={"rule_probe.py": "0" * 64})
    v = scoring_verifier_version(**base)
    assert v.startswith("vv2-") and v == scoring_verifier_version(**base)
    rubric2 = json.loads(json.dumps(RUBRIC))
    rubric2["criteria"][1]["params"]["tolerance"] = 0.02
    changes = [dict(rubric=rubric2), dict(renderer="r2"), dict(probe_files={"rule_probe.py": "1" * 64}),
               dict(profile_ref={"profile_id": "kuka-80-20", "profile_version": "1"}),
               dict(profile_params={"core_caps": {"C01": 0.25}}), dict(judge_config={"questions": []})]
    versions = {scoring_verifier_version(**{**base, **c}) for c in changes}
    assert v not in versions and len(versions) == len(changes)
    # the pipeline fixes the basis at stage 03 and adds calibrated params later: same version
    basis_args = {k: v for k, v in base.items()}
    params = {"core_caps": {"C01": 0.25}}
    assert verifier_version_from(scoring_verifier_basis(**basis_args), params) == \
        scoring_verifier_version(**base, profile_params=params)


def test_standalone_probe_files_import_only_stdlib_bpy_numpy_and_each_other():
    allowed = set(sys.stdlib_module_names) | {"bpy", "bpy_extras", "mathutils", "bmesh", "numpy", "__future__"}
    siblings = {Path(f).stem for f in PROBE_FILES}
    for name in PROBE_FILES:
        tree = ast.parse((VERIFIERS / name).read_text())
        for node in ast.walk(tree):
            mods = ([a.name for a in node.names] if isinstance(node, ast.Import)
                    else [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            for mod in mods:
                top = mod.split(".")[0]
                assert top in allowed or top in siblings, f"{name} imports {mod}"
    assert set(PROBE_FILES) < set(REWARDKIT_FILES)


# --- colour -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("lab1, lab2, expected", [  # Sharma, Wu & Dalal (2005) test data
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, -1.3802, -84.2814), (50.0, 0.0, -82.7485), 1.0000),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((2.0776, 0.0795, -1.135), (0.9033, -0.0636, -0.5514), 0.9082),
])
def test_ciede2000_matches_published_values(lab1, lab2, expected):
    assert colour_math.delta_e2000(lab1, lab2) == pytest.approx(expected, abs=1e-4)


def test_colour_parsing_and_lab():
    assert colour_math.parse_colour("#ffffff") == pytest.approx((1.0, 1.0, 1.0))
    assert colour_math.linear_to_lab((1.0, 1.0, 1.0)) == pytest.approx((100.0, 0.0, 0.0), abs=1e-3)
    assert colour_math.delta_e_linear((0.5, 0.2, 0.1), (0.5, 0.2, 0.1)) == 0.0


# --- the grader's budget is the solver's problem ---------------------------------------------------


@pytest.mark.parametrize("profile_id", sorted({p.profile_id for p in REGISTRY.values()}))
def test_a_delivery_that_broke_the_probe_or_the_evidence_is_a_named_0(profile_id):
    from verifiers.vl import BUDGET_EXCEEDED, image_metric_judge_id, no_evidence_result

    profile = get_profile(profile_id)
    task = task_with_profile(TASK, profile)
    hung = {**report(crit("C01", 0.5, 0.0, core=True), crit("C02", 0.5, 0.0)),
            "delivery_problem": {"type": "DeliveryHungProbe", "detail": "the rule probe exited with status 124"}}
    answer = vl(1, 1, 1) if profile.uses_vl else None
    rec = score_record(profile, hung, answer, task, verifier_version="v")
    assert rec["total"] == 0.0 and rec["success"] is False
    assert rec["delivery_failure"] == {"type": "DeliveryHungProbe", "stage": "rule probe",
                                       "detail": "the rule probe exited with status 124"}
    if profile.uses_vl:  # a perfect rule report, but the evidence renders ran past the budget
        over = no_evidence_result(JUDGE, image_metric_judge_id(), f"{BUDGET_EXCEEDED}: ran past 600s")
        rec = score_record(profile, GOOD, over, task, verifier_version="v")
        assert rec["total"] == 0.0 and rec["success"] is False and rec["total_null_reason"] is None
        assert rec["delivery_failure"] == {"type": BUDGET_EXCEEDED, "stage": "evidence renders",
                                           "detail": "ran past 600s"}
    # an honest delivery's record carries no failure, and its VL dict no new key
    fine = score_record(profile, GOOD, answer, task, verifier_version="v")
    assert "delivery_failure" not in fine and (fine["vl"] is None or "delivery_failure" not in fine["vl"])
