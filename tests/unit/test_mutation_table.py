"""The mutation table and the gaming table (verifiers/mutation_testing.py): judged on the rule
channel with a perfect VL answer, allowed operators set apart, errors never counted as killed,
and a draft's allowances checked at admission (no Blender)."""

from __future__ import annotations

import pytest

from verifiers.mutation_testing import (MIN_GAMING, OPERATOR_NAMES, check_allowed, gaming_table,
                                        mutation_table)
from verifiers.profiles import get_profile

TASK = {"task_id": "t", "verification": {"weights": {"rule": 0.7, "vl": 0.3, "agent": 0},
                                         "pass_threshold": 0.7, "core_failure_cap": 0.4}}


def crit(cid: str, passed: bool, weight: float = 0.5, core: bool = False) -> dict:
    return {"id": cid, "weight": weight, "core": core, "score": 1.0 if passed else 0.0, "passed": passed}


ALL_PASS = [crit("C01", True, core=True), crit("C02", True)]
CORE_FAILS = [crit("C01", False, core=True), crit("C02", True)]
# rule 0.5, no core failure: 0.7 * 0.5 + 0.3 * 1 (perfect VL) = 0.65 < 0.7
NON_CORE_FAILS = [crit("C01", True, core=True), crit("C02", False)]


def row(op: str, criteria: list[dict] | None, applicable: bool = True, error: str | None = None) -> dict:
    return {"operator": op, "doc": "", "applicable": applicable, "why": None if applicable else "n/a",
            "criteria": criteria if applicable else None, "error": error}


def test_an_operator_is_killed_only_when_the_rule_channel_refuses_it_with_a_perfect_judge():
    profile = get_profile("blender-70-30")
    rows = [row("bbox_vertices", CORE_FAILS), row("strip_faces", NON_CORE_FAILS), row("occluder", ALL_PASS),
            row("retime_keys", None, applicable=False), row("junk_objects", None, error="Traceback ...")]
    table = mutation_table(rows, profile, TASK, None)
    by = {r["operator"]: r for r in table["operators"]}
    assert by["bbox_vertices"]["killed"] and by["bbox_vertices"]["caught_by"] == ["C01"]
    assert by["strip_faces"]["killed"] and by["strip_faces"]["reward"] == pytest.approx(0.65)
    assert not by["occluder"]["killed"] and by["occluder"]["success"]
    assert by["retime_keys"]["killed"] is None and by["retime_keys"]["why"] == "n/a"
    assert by["junk_objects"]["killed"] is False  # could not be applied: never counted as killed
    assert table["applicable"] == 4 and table["killed"] == 2 and table["score"] == 0.5
    assert table["survivors"] == ["occluder", "junk_objects"]


@pytest.mark.parametrize("profile_id", ["rule-only", "blender-70-30", "kuka-80-20"])
def test_a_row_measured_until_a_core_criterion_failed_is_killed_under_every_profile(profile_id):
    """``until_core_fails`` rows (mutation testing stops at the first failed core criterion):
    killed whatever the profile, their reward and rule score unknown (None), caught by what was
    measured; a row with criteria left unmeasured but no core failure is a harness error."""
    stopped = {**row("bbox_vertices", [crit("C02", True), crit("C01", False, core=True)]), "unmeasured": ["C03"]}
    table = mutation_table([stopped, row("occluder", ALL_PASS)], get_profile(profile_id), TASK, None)
    by = {r["operator"]: r for r in table["operators"]}
    assert by["bbox_vertices"]["killed"] is True and by["bbox_vertices"]["caught_by"] == ["C01"]
    assert by["bbox_vertices"]["reward"] is None and by["bbox_vertices"]["rule_score"] is None
    assert table["killed"] == 1 and table["survivors"] == ["occluder"]
    with pytest.raises(ValueError, match="no core criterion failed"):
        mutation_table([{**row("strip_faces", NON_CORE_FAILS), "unmeasured": ["C03"]}], get_profile(profile_id),
                       TASK, None)


def test_an_allowed_operator_is_shown_with_its_reason_and_does_not_count():
    table = mutation_table([row("occluder", ALL_PASS), row("bbox_vertices", CORE_FAILS)],
                           get_profile("rule-only"), TASK, None, {"occluder": "the spec allows a backdrop"})
    assert table["survivors"] == [] and table["applicable"] == 1 and table["score"] == 1.0
    assert table["operators"][0]["allowed"] == "the spec allows a backdrop"


def test_gaming_samples_must_be_refused_and_at_least_two():
    profile = get_profile("blender-70-30")
    table = gaming_table([{"sample": "gaming:a", "criteria": CORE_FAILS},
                          {"sample": "gaming:b", "criteria": ALL_PASS}], profile, TASK, None)
    assert [g["refused"] for g in table["samples"]] == [True, False]
    assert table["refused"] == 1 and table["total"] == 2
    assert len(table["misses"]) == 1 and "gaming:b" in table["misses"][0]
    one = gaming_table([{"sample": "gaming:a", "criteria": CORE_FAILS}], profile, TASK, None)
    assert one["misses"] == [f"1 gaming sample(s) in calibration/gaming/, at least {MIN_GAMING} required"]


def test_admission_checks_the_allowances():
    check_allowed({"mutation_allowed": [{"operator": OPERATOR_NAMES[0], "reason": "why"}]}, "task.json")
    with pytest.raises(ValueError, match=r"task.json: mutation_allowed\[0\].operator: unknown gaming operator"):
        check_allowed({"mutation_allowed": [{"operator": "nope", "reason": "why"}]}, "task.json")
    with pytest.raises(ValueError, match=r"mutation_allowed\[0\].reason"):
        check_allowed({"mutation_allowed": [{"operator": "occluder", "reason": " "}]}, "task.json")
