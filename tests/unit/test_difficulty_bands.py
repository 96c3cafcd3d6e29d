"""Difficulty bands (docs/datasets.md "Difficulty bands"), no Blender: a campaign's records
become a difficulty record (infra exceptions not scored, the Wilson interval), records pool per
(task, config) within one verifier version, each band condition is met, unmet or unmeasured,
and freeze-check / freeze read them from a real revision on real files — a split out of its band
refuses the freeze; a spec naming an unknown config or split is a named error, nothing written."""

from __future__ import annotations

import json

import pytest
from temporalio.exceptions import ApplicationError

from campaigns.difficulty import config_counts, difficulty_record, wilson
from contracts.models import DatasetBand
from contracts.solver_configs import SCRIPTED_LABEL
from dataset_revisions.bands import (IN_BAND, OUT_OF_BAND, UNMEASURED, Measure, UnknownBandConfig, judge,
                                     pool, possibly_impossible, verifier_version)
from dataset_revisions.chain import read_chain
from dataset_revisions.freeze import FreezeNotReady, freeze, freeze_check
from dataset_revisions.layout import RevisionKeys
from storage.objects import FilesystemObjects
from tests.unit.test_dataset_revisions import SPEC, TASKS, open_demo_revision, open_revision

BANDED = {**SPEC, "revision": "r2", "bands": {"test": {"solved_by": "oracle", "not_always_solved_by": "nop"}}}
R2 = RevisionKeys("demo", "r2")
SOLVED = {"success": True, "reward": 1.0, "failure": None, "exception": None}
FAILED = {"success": False, "reward": 0.2, "failure": {"kind": "solver", "type": "Wrong", "message": "no"},
          "exception": None}
INFRA = {"success": None, "reward": None, "exception": None,
         "failure": {"kind": "infra", "type": "TrialInfraError", "message": "slot pool exhausted"}}


def test_wilson_interval():
    assert wilson(0, 0) is None
    low, high = wilson(3, 3)
    assert high == 1.0 and low == pytest.approx(0.438503, abs=1e-6)  # not the point 1.0
    low, high = wilson(1, 2)
    assert low == pytest.approx(1 - high, abs=1e-6) and low < 0.5 < high
    assert wilson(0, 3) == (0.0, pytest.approx(1 - 0.438503, abs=1e-6))


def test_infra_exceptions_are_not_scored_never_a_zero():
    config = {"config_id": "oracle", "kind": "scripted", "label": SCRIPTED_LABEL, "attempts": 3}
    c = config_counts(config, [dict(SOLVED), dict(INFRA), dict(FAILED)])
    assert (c["k"], c["recorded"], c["scored"], c["solved"], c["infra_exceptions"]) == (3, 3, 2, 1, 1)
    assert c["solve_rate"] == 0.5 and c["interval"]["method"] == "wilson"
    only_infra = config_counts(config, [dict(INFRA)])
    assert only_infra["scored"] == 0 and only_infra["solve_rate"] is None and only_infra["interval"] is None


def plan_for(campaign_id: str, tasks: dict[str, str], attempts: dict[str, int], target: str = "candidates",
             revision: RevisionKeys = R2) -> dict:
    """A campaign plan's fields the difficulty record reads (`tasks`: task id -> verifier version)."""
    return {
        "campaign_id": campaign_id,
        "source": {"dataset": {"namespace": revision.namespace, "revision": revision.revision,
                               "split": None, "manifest_sha256": None, "target": target},
                   "publications": []},
        "configs": [{"config_id": c, "kind": "scripted", "label": SCRIPTED_LABEL, "attempts": k}
                    for c, k in attempts.items()],
        "tasks": [{"task_id": t, "task_version": "v1-x", "publication_id": f"{t}-r1",
                   "publication_sha256": "a" * 64, "verifier_version": v} for t, v in tasks.items()],
    }


def record_for(plan: dict, outcomes: dict[tuple[str, str], list[dict]]) -> dict:
    records = [{"task_id": t, "config": c, **o} for (t, c), os in outcomes.items() for o in os]
    doc = difficulty_record(plan, "b" * 64, records, None)
    assert doc is not None
    return doc


def test_a_difficulty_record_per_task_and_config_validated_and_labelled():
    plan = plan_for("c1", {"alpha": "vv-1"}, {"oracle": 2, "nop": 2})
    doc = record_for(plan, {("alpha", "oracle"): [SOLVED, INFRA], ("alpha", "nop"): [FAILED, FAILED]})
    (task,) = doc["tasks"]
    oracle, nop = task["configs"]
    assert task["verifier_version"] == "vv-1" and doc["target"] == "candidates"
    assert (oracle["scored"], oracle["solved"], oracle["infra_exceptions"]) == (1, 1, 1)
    assert (nop["scored"], nop["solved"], nop["solve_rate"]) == (2, 0, 0)
    assert {c["label"] for c in task["configs"]} == {"scripted policy — not a model result"}
    loose = {**plan, "source": {"dataset": None, "publications": ["publications/alpha/alpha-r1"]}}
    assert difficulty_record(loose, "b" * 64, [], None) is None  # no revision to write beside


def m(config: str, k: int, scored: int, solved: int) -> Measure:
    return Measure(config, "scripted", SCRIPTED_LABEL, k=k, scored=scored, solved=solved)


def test_band_conditions_met_unmet_and_unmeasured():
    band = DatasetBand(solved_by="oracle", not_always_solved_by="nop")
    assert judge(band, {"oracle": m("oracle", 3, 3, 1), "nop": m("nop", 3, 3, 0)}) == (IN_BAND, [])
    status, why = judge(band, {"oracle": m("oracle", 3, 3, 0), "nop": m("nop", 3, 3, 0)})
    assert status == OUT_OF_BAND and why == ["solved_by: oracle solved 0 of 3 scored (3 planned)"]
    status, why = judge(band, {"oracle": m("oracle", 3, 3, 2), "nop": m("nop", 3, 3, 3)})
    assert status == OUT_OF_BAND and why == ["not_always_solved_by: nop solved 3 of 3 scored (3 planned)"]
    # an unscored attempt (infra) might have gone either way: not decided
    status, why = judge(band, {"oracle": m("oracle", 3, 2, 0), "nop": m("nop", 3, 2, 2)})
    assert status == UNMEASURED and len(why) == 2
    status, why = judge(band, {"oracle": m("oracle", 1, 1, 1)})
    assert status == UNMEASURED and why == ["not_always_solved_by nop: no scored attempt recorded"]
    assert possibly_impossible({"oracle": m("oracle", 1, 1, 0), "nop": m("nop", 1, 0, 0)})
    assert not possibly_impossible({"oracle": m("oracle", 1, 0, 0)})  # nothing scored: nothing known


def test_counts_pool_across_campaigns_only_within_one_verifier_version():
    a = record_for(plan_for("c1", {"alpha": "vv-1"}, {"oracle": 1}), {("alpha", "oracle"): [FAILED]})
    b = record_for(plan_for("c2", {"alpha": "vv-1"}, {"oracle": 2}), {("alpha", "oracle"): [SOLVED, FAILED]})
    old = record_for(plan_for("c0", {"alpha": "vv-0"}, {"oracle": 5}), {("alpha", "oracle"): [SOLVED] * 5})
    pooled = pool([a, b, old], {"alpha": "vv-1"})["alpha"]["oracle"]
    assert (pooled.k, pooled.scored, pooled.solved, pooled.campaigns) == (3, 3, 1, ["c1", "c2"])
    assert pool([old], {"alpha": "vv-1"}) == {} and pool([a], {}) == {}


def banded_revision(tmp_path):
    rev = open_demo_revision(tmp_path)
    open_revision(rev.objects, BANDED)
    for t in TASKS:
        rev.publish(t, keys=R2)
    links = {link.task_id: link for link in read_chain(rev.objects, R2)}
    return rev, {t: verifier_version(rev.objects, link) for t, link in links.items()}


def put_record(objects, doc: dict) -> None:
    objects.replace(R2.difficulty(doc["campaign_id"]), json.dumps(doc).encode())


def test_freeze_check_reports_every_band_and_freeze_refuses_a_split_out_of_band(tmp_path):
    rev, versions = banded_revision(tmp_path)
    before = freeze_check(rev.objects, R2)
    (test_task,) = before.splits["test"].tasks
    assert not before.freeze_ready
    assert [g.rule for g in before.gaps] == ["difficulty_bands"]
    assert f"split test: {test_task} is unmeasured" in before.gaps[0].message
    assert {b.task_id: b.status for b in before.bands} == {
        t: ("unmeasured" if t == test_task else "unbanded") for t in TASKS}
    with pytest.raises(FreezeNotReady, match="difficulty_bands"):
        freeze(rev.objects, R2, "2026-12-01T00:00:00+00:00")
    assert not rev.objects.exists(R2.manifest)

    # nop solves the test task every time: too easy for the band; another task nobody solves
    plan = plan_for("easy", versions, {"oracle": 1, "nop": 2})
    impossible = next(t for t in TASKS if t != test_task)
    outcomes = {(t, "oracle"): [SOLVED] for t in TASKS if t != impossible}
    outcomes |= {(t, "nop"): [FAILED, FAILED] for t in TASKS}
    outcomes[(test_task, "nop")] = [SOLVED, SOLVED]
    outcomes[(impossible, "oracle")] = [FAILED]
    put_record(rev.objects, record_for(plan, outcomes))
    report = freeze_check(rev.objects, R2)
    band = {b.task_id: b for b in report.bands}
    assert band[test_task].status == OUT_OF_BAND and band[test_task].split == "test"
    assert band[test_task].reasons == ["not_always_solved_by: nop solved 2 of 2 scored (2 planned)"]
    assert report.possibly_impossible == [impossible] and band[impossible].possibly_impossible
    assert impossible in {t for s in report.splits.values() for t in s.tasks} | set(report.unused)  # kept
    with pytest.raises(FreezeNotReady, match=f"split test: {test_task} is out of band"):
        freeze(rev.objects, R2, "2026-12-01T00:00:00+00:00")

    # a record of the same task under another verifier version changes nothing ...
    stale = {**versions, test_task: "vv-stale"}
    put_record(rev.objects, record_for(plan_for("stale", stale, {"nop": 3}), {(test_task, "nop"): [FAILED] * 3}))
    assert not freeze_check(rev.objects, R2).freeze_ready
    # ... one under the current version pools with the first: nop failed once in 5, in band
    put_record(rev.objects, record_for(plan_for("more", versions, {"nop": 3}),
                                       {(test_task, "nop"): [SOLVED, FAILED, INFRA]}))
    ready = freeze_check(rev.objects, R2)
    assert ready.freeze_ready, ready.gaps
    in_band = {b.task_id: b for b in ready.bands}[test_task]
    assert in_band.status == IN_BAND and in_band.fits == ["test"]
    assert (in_band.measured["nop"].scored, in_band.measured["nop"].solved) == (4, 3)
    assert json.loads(json.dumps(ready.to_dict()))["bands"]  # what --json prints
    freeze(rev.objects, R2, "2026-12-01T00:00:00+00:00")
    assert rev.objects.exists(R2.manifest)


def test_a_band_naming_an_unknown_config_or_split_is_a_named_error_and_writes_nothing(tmp_path):
    objects = FilesystemObjects(tmp_path / "var")
    with pytest.raises(ApplicationError, match=r"bands\.test\.solved_by: unknown config 'gpt-oracle'") as e:
        open_revision(objects, {**BANDED, "bands": {"test": {"solved_by": "gpt-oracle"}}})
    assert e.value.type == "InvalidDatasetSpec" and e.value.non_retryable
    with pytest.raises(ApplicationError, match=r"bands: Value error, holdout: not a split of this spec"):
        open_revision(objects, {**BANDED, "bands": {"holdout": {"solved_by": "oracle"}}})
    with pytest.raises(ApplicationError, match=r"bands\.test: {} should be non-empty"):
        open_revision(objects, {**BANDED, "bands": {"test": {}}})
    assert objects.list("") == []
    # a dataset.json stored by hand (or by an older build) is refused by freeze-check too
    objects.replace(R2.spec, json.dumps({**BANDED, "bands": {"test": {"not_always_solved_by": "noop"}}}).encode())
    with pytest.raises(UnknownBandConfig, match=r"dataset\.json: bands\.test\.not_always_solved_by: unknown config 'noop'"):
        freeze_check(objects, R2)
