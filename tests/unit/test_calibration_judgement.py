"""`verifiers.calibration.judge_samples`: the one calibration judgement the calibration step
(`judge_profile`) and the pipeline's stage 05 (`ReviewActivities.judge_calibration`) share."""

from __future__ import annotations

import pytest

from verifiers.calibration import judge_samples

KW = {"pass_threshold": 0.7, "reference_min": 0.9, "margin": 0.2}


def row(name: str, kind: str, total: float | None, success: bool | None, failed: tuple[str, ...] = (),
        null_reason: str | None = None) -> dict:
    criteria = [{"id": cid, "passed": cid not in failed} for cid in ("C01", "C02", "C03")]
    return {"name": name, "kind": kind, "total": total, "success": success, "criteria": criteria,
            "null_reason": null_reason}


def good_set() -> list[dict]:
    return [
        row("reference", "reference", 1.0, True),
        row("input", "input", 0.35, False, failed=("C01", "C02")),
        row("defect:drop", "defect", 0.4, False, failed=("C03",)),
        row("variant:swing", "variant", 0.95, True),
    ]


def test_all_good_passes_with_margins():
    j = judge_samples(good_set(), **KW)
    assert j.passed and j.misses == []
    assert (j.min_good, j.max_bad, j.margin, j.required_margin) == (0.95, 0.4, 0.55, 0.2)
    assert j.sample_margins == {"reference": 0.6, "input": 0.6, "defect:drop": 0.55, "variant:swing": 0.55}
    assert all(s.met for s in j.samples)
    assert [s.name for s in j.samples] == ["reference", "input", "defect:drop", "variant:swing"]
    assert j.sample("reference").expected == "total >= 0.9 and success"
    assert j.sample("variant:swing").expected == "total >= 0.7 and success"
    assert j.sample("defect:drop").expected == "not success and total <= 0.7500"


def test_reference_too_low():
    rows = good_set()
    rows[0] = row("reference", "reference", 0.85, True, failed=("C02",))
    j = judge_samples(rows, **KW)
    assert not j.passed and not j.sample("reference").met
    assert j.misses == ["sample 'reference' scored 0.850 (success True), expected total >= 0.9 and success "
                        "(failed criteria: C02)"]


def test_reference_that_does_not_succeed_misses():
    rows = good_set()
    rows[0] = row("reference", "reference", 0.95, False, failed=("C01",))
    j = judge_samples(rows, **KW)
    assert not j.sample("reference").met
    assert "failed criteria: C01" in j.misses[0]


def test_defect_too_high():
    rows = good_set()
    rows[2] = row("defect:drop", "defect", 0.8, False, failed=("C03",))
    j = judge_samples(rows, **KW)
    assert not j.passed and not j.sample("defect:drop").met
    assert j.sample("defect:drop").margin == 0.15
    assert j.misses == [
        "sample 'defect:drop' scored 0.800 (success False), expected not success and total <= 0.7500 "
        "(criteria that did not catch it: C01, C02)",
        "margin 0.150 < 0.2",
    ]


def test_a_successful_defect_misses_even_when_low():
    rows = good_set()
    rows[2] = row("defect:drop", "defect", 0.4, True)
    j = judge_samples(rows, **KW)
    assert not j.sample("defect:drop").met
    assert j.misses == ["sample 'defect:drop' scored 0.400 (success True), expected not success and "
                        "total <= 0.7500 (criteria that did not catch it: C01, C02, C03)"]


def test_margin_too_small():
    rows = good_set()
    rows[2] = row("defect:drop", "defect", 0.6, False, failed=("C03",))
    assert judge_samples(rows, **KW).passed  # 0.35 apart is enough for 0.2 ...
    j = judge_samples(rows, pass_threshold=0.7, reference_min=0.9, margin=0.4)  # ... not for 0.4
    assert j.margin == 0.35 and not j.passed
    assert j.misses == [
        "sample 'defect:drop' scored 0.600 (success False), expected not success and total <= 0.5500 "
        "(criteria that did not catch it: C01, C02)",
        "margin 0.350 < 0.4",
    ]


def test_margin_exactly_at_the_requirement_passes():
    rows = good_set()
    rows[2] = row("defect:drop", "defect", 0.75, False, failed=("C03",))
    j = judge_samples(rows, **KW)
    assert j.margin == pytest.approx(0.2) and j.passed, j.misses


def test_null_total_misses_and_is_left_out_of_the_margin():
    rows = good_set()
    rows[3] = row("variant:swing", "variant", None, None, null_reason="VL missing: question B")
    j = judge_samples(rows, **KW)
    assert not j.passed and not j.sample("variant:swing").met
    assert j.sample("variant:swing").margin is None
    assert j.misses == ["sample 'variant:swing': total is null (VL missing: question B)"]
    assert (j.min_good, j.max_bad, j.margin) == (1.0, 0.4, 0.6)


def test_no_good_total_leaves_margins_unknown():
    rows = [row("reference", "reference", None, None, null_reason="boom"), row("input", "input", 0.1, False)]
    j = judge_samples(rows, **KW)
    assert j.min_good is None and j.margin is None
    assert j.sample("input").met and j.sample("input").expected == "not success"
    assert j.misses == ["sample 'reference': total is null (boom)"]


def test_bad_rows_are_refused():
    with pytest.raises(ValueError, match="unknown kind"):
        judge_samples([row("x", "oracle", 1.0, True)], **KW)
    with pytest.raises(ValueError, match="not unique"):
        judge_samples([row("x", "reference", 1.0, True), row("x", "input", 0.0, False)], **KW)
