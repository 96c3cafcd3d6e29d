"""The verifier drift check's own logic, without Blender or Temporal (docs/verifier-drift.md):
what counts as drift (a verdict flip, a reward beyond the tolerance, criteria added or removed,
the mutation score), what never does (a record that was not a graded attempt), the candidate's
probe code laid over the workers', the report's model and key, and bad input refused before
anything is written (the command and the planning activity)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError
from temporalio.exceptions import ApplicationError

from activities.verifier_drift import DriftActivities, Regrade
from contracts.errors import INVALID_DRIFT_REQUEST
from contracts.payloads.common import DatasetRef
from contracts.payloads.verifier_drift import VerifierDriftInput, VerifierDriftReport
from dataset_revisions.layout import RevisionKeys
from storage.content import FilesystemStore
from storage.objects import FilesystemObjects
from verifiers.drift import (CANDIDATE_FILES, CODE_FILES, Graded, candidate_problems, compare, mutation_drift,
                             not_rescored_mutation, record_entry, stage_code, summarize, task_drifts)
from verifiers.profiles import get_profile
from verifiers.version import VERIFIERS, verifier_code_id

PROJECT = Path(__file__).resolve().parents[2]
CRITERIA = [{"id": "C01", "passed": True}, {"id": "C02", "passed": True}]


def graded(reward, success, criteria=CRITERIA) -> Graded:
    return Graded.of(reward, success, criteria)


def test_a_verdict_that_flips_is_drift_and_names_the_criterion_that_caused_it():
    failed = [{"id": "C01", "passed": True}, {"id": "C02", "passed": False}]
    out = compare(graded(1.0, True), graded(0.4, False, failed), tolerance=0.01)
    assert out["verdict_flip"] and out["reward_changed"] and out["drift"]
    assert out["reward_delta"] == pytest.approx(-0.6)
    assert out["criteria_changed"] == ["C02"] and out["criteria_added"] == out["criteria_removed"] == []


def test_a_reward_within_the_tolerance_is_not_drift_and_beyond_it_is():
    within = compare(graded(0.90, True), graded(0.905, True), tolerance=0.01)
    assert not within["drift"] and not within["reward_changed"] and within["reward_delta"] == pytest.approx(0.005)
    beyond = compare(graded(0.90, True), graded(0.92, True), tolerance=0.01)
    assert beyond["drift"] and beyond["reward_changed"] and not beyond["verdict_flip"]
    exact = compare(graded(0.90, True), graded(0.90, True), tolerance=0.0)
    assert not exact["drift"]
    tighter = compare(graded(0.90, True), graded(0.905, True), tolerance=0.001)
    assert tighter["drift"]  # the tolerance is the caller's


def test_a_reward_that_becomes_or_stops_being_null_is_drift():
    assert compare(graded(0.5, False), graded(None, False), 0.01)["reward_changed"]
    assert compare(graded(None, False), graded(0.5, False), 0.01)["reward_changed"]
    assert not compare(graded(None, False), graded(None, False), 0.01)["drift"]
    assert not compare(graded(None, None), graded(None, False), 0.01)["verdict_flip"]  # null never passed


def test_criteria_added_or_removed_are_drift_by_id_even_when_the_reward_holds():
    out = compare(graded(1.0, True), graded(1.0, True, [{"id": "C01", "passed": True},
                                                      {"id": "C03", "passed": True}]), 0.01)
    assert out["criteria_added"] == ["C03"] and out["criteria_removed"] == ["C02"] and out["drift"]
    assert not out["verdict_flip"] and not out["reward_changed"]


def test_a_criterion_verdict_change_alone_is_shown_but_not_drift():
    """A defect capped at 0.4 stays at 0.4 when one more criterion fails: listed, no drift."""
    out = compare(graded(0.4, False, [{"id": "C01", "passed": False}, {"id": "C02", "passed": True}]),
                  graded(0.4, False, [{"id": "C01", "passed": False}, {"id": "C02", "passed": False}]), 0.01)
    assert out["criteria_changed"] == ["C02"] and not out["drift"]


def test_a_record_not_rescored_is_listed_with_why_and_is_never_drift():
    entry = record_entry("campaign", "c1.t.llm.1", graded(1.0, True), None, 0.01, campaign_id="c1",
                         not_rescored="infrastructure exception (TrialInfraError): not a graded attempt")
    assert not entry["rescored"] and not entry["drift"] and not entry["verdict_flip"]
    assert entry["campaign_id"] == "c1" and entry["not_rescored"].startswith("infrastructure exception")
    assert entry["stored_reward"] == 1.0 and entry["new_reward"] is None
    with pytest.raises(ValueError, match="either re-scored"):
        record_entry("evaluation", "t", graded(1.0, True), graded(1.0, True), 0.01, not_rescored="why")
    with pytest.raises(ValueError, match="either re-scored"):
        record_entry("evaluation", "t", graded(1.0, True), None, 0.01)
    with pytest.raises(ValueError, match="unknown record source"):
        record_entry("pilot", "t", graded(1.0, True), graded(1.0, True), 0.01)


def _table(killed: dict[str, bool | None], allowed=()) -> dict:
    ops = [{"operator": op, "applicable": k is not None, "killed": k, "allowed": "ok" if op in allowed else None}
           for op, k in killed.items()]
    counted = [o for o in ops if o["applicable"] and not o["allowed"]]
    n = sum(bool(o["killed"]) for o in counted)
    return {"operators": ops, "applicable": len(counted), "killed": n,
            "score": round(n / len(counted), 6) if counted else 1.0,
            "survivors": [o["operator"] for o in counted if not o["killed"]]}


def test_the_mutation_score_under_the_new_grader_against_the_stored_one():
    stored = _table({"occluder": True, "junk_objects": True, "retime_keys": None})
    gaming = {"samples": [{"sample": "gaming:a", "refused": True}, {"sample": "gaming:b", "refused": True}],
              "refused": 2}
    same = mutation_drift(stored, _table({"occluder": True, "junk_objects": True, "retime_keys": None}),
                          gaming, gaming)
    assert not same["changed"] and same["stored_score"] == same["new_score"] == 1.0
    weaker = mutation_drift(stored, _table({"occluder": True, "junk_objects": False, "retime_keys": None}),
                            gaming, {"samples": [{"sample": "gaming:a", "refused": True},
                                                 {"sample": "gaming:b", "refused": False}], "refused": 1})
    assert weaker["changed"] and weaker["newly_surviving"] == ["junk_objects"] and weaker["new_score"] == 0.5
    assert weaker["gaming_newly_accepted"] == ["gaming:b"] and weaker["gaming_new_refused"] == 1
    allowed = mutation_drift(_table({"occluder": True, "junk_objects": False}, allowed=("junk_objects",)),
                             _table({"occluder": True, "junk_objects": False}, allowed=("junk_objects",)),
                             None, None)
    assert not allowed["changed"] and allowed["newly_surviving"] == []
    before_mutation_testing = mutation_drift(None, _table({"occluder": True}), None, None)
    assert not before_mutation_testing["changed"] and before_mutation_testing["stored_score"] is None


def _task(task_id: str, records: list[dict], mutation: dict | None = None, calibration_changed=False) -> dict:
    mutation = mutation or not_rescored_mutation("no reference delivery")
    calibration = {"passed_before": True, "passed_now": not calibration_changed, "misses_now": [],
                   "changed": calibration_changed}
    return {"task_id": task_id, "task_version": "v1-000000000000", "publication_id": f"{task_id}-r1",
            "publication_sha256": "a" * 64, "scoring_profile": {"profile_id": "rule-only", "profile_version": "1"},
            "frozen_verifier_version": "vv2-0000000000000000", "current_verifier_version": "vv2-1111111111111111",
            "version_changed": True, "frozen_version_reproduced": True, "vl_answers": "not-weighted",
            "records": records, "calibration": calibration, "mutation": mutation,
            "drift": task_drifts(records, mutation, calibration)}


def test_summary_counts_and_zero_drift_and_the_report_model():
    flipped = record_entry("calibration", "reference", graded(1.0, True), graded(0.4, False), 0.01)
    same = record_entry("evaluation", "t.oracle.1", graded(1.0, True), graded(1.0, True), 0.01)
    infra = record_entry("campaign", "c.t.llm.1", None, None, 0.01, campaign_id="c",
                         not_rescored="infrastructure exception (X): not a graded attempt")
    tasks = [_task("table", [flipped, same]), _task("fence", [same, infra]),
             _task("mug", [same], calibration_changed=True)]
    s = summarize(tasks)
    assert s["tasks_checked"] == 3 and s["samples_rescored"] == 1 and s["trials_rescored"] == 3
    assert s["not_rescored"] == 1 and s["verdict_flips"] == 1 and s["reward_changes"] == 1
    assert s["tasks_with_drift"] == ["table", "mug"] and not s["zero_drift"] and s["calibration_changes"] == 1
    assert summarize([_task("fence", [same, infra])])["zero_drift"]
    doc = {"report_version": "1", "namespace": "it", "revision": "r1", "created_at": "2026-12-01T00:00:00+00:00",
           "tolerance": 0.01, "attacks": True, "verifier_code": {"id": "vc-000000000000", "files": {"rule_probe.py": "b" * 64},
                                                "candidate": None, "replaced": []},
           "frozen_verifier_versions": ["vv2-0000000000000000"], "current_verifier_versions": ["vv2-1111111111111111"],
           "summary": s, "tasks": tasks}
    report = VerifierDriftReport.model_validate(doc)
    assert report.tasks[0].records[0].verdict_flip and report.summary.tasks_with_drift == ["table", "mug"]
    assert report.model_dump(mode="json") == json.loads(json.dumps(doc))  # what is written is what was built
    with pytest.raises(ValidationError):
        VerifierDriftReport.model_validate({**doc, "extra": 1})
    with pytest.raises(ValidationError):
        VerifierDriftReport.model_validate({**doc, "tasks": [{**tasks[0], "vl_answers": "maybe"}]})


def test_a_candidate_replaces_the_workers_probe_files_it_names_and_nothing_else(tmp_path):
    candidate = tmp_path / "candidate"
    candidate.mkdir()
    changed = (VERIFIERS / "probes_surface.py").read_text() + "\n# a candidate's change\n"
    (candidate / "probes_surface.py").write_text(changed)
    code, replaced = stage_code(tmp_path / "code", candidate)
    assert replaced == ["probes_surface.py"] and sorted(p.name for p in code.iterdir()) == sorted(CODE_FILES)
    assert (code / "probes_surface.py").read_text() == changed
    assert (code / "rule_probe.py").read_bytes() == (VERIFIERS / "rule_probe.py").read_bytes()
    own, _ = stage_code(tmp_path / "own")
    assert verifier_code_id(own) == verifier_code_id(VERIFIERS)  # the workers' code: one id
    assert verifier_code_id(code)[0] != verifier_code_id(own)[0]
    assert verifier_code_id(code)[1]["probes_surface.py"] != verifier_code_id(own)[1]["probes_surface.py"]


def test_a_candidate_that_is_not_a_folder_of_probe_files_is_refused(tmp_path):
    assert candidate_problems(tmp_path / "missing") == [f"{tmp_path / 'missing'}: not a folder"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "empty" in candidate_problems(empty)[0]
    odd = tmp_path / "odd"
    odd.mkdir()
    (odd / "probes_surface.py").write_text("")
    (odd / "notes.txt").write_text("")
    (problem,) = candidate_problems(odd)
    assert "notes.txt" in problem and "probes_surface.py" not in problem.split(":")[1]
    with pytest.raises(ValueError, match="notes.txt"):
        stage_code(tmp_path / "code", odd)
    assert "probe_server.py" not in CANDIDATE_FILES  # the runner is not the grader


def test_the_report_lies_beside_the_revision():
    assert RevisionKeys("demo", "r1").drift_report("vc-0123456789ab", "cafebabe0000") == \
        "datasets/demo/r1/drift/vc-0123456789ab-cafebabe0000.json"
    assert RevisionKeys("demo", "r1").drift_reports == "datasets/demo/r1/drift/"


@pytest.fixture
def drift(tmp_path) -> DriftActivities:
    objects = FilesystemObjects(tmp_path / "var")
    objects.put_if_absent(RevisionKeys("it", "r1").spec, b"{}")
    return DriftActivities(FilesystemStore(tmp_path / "var" / "store"), objects, PROJECT)


@pytest.mark.parametrize("req, words", [
    (VerifierDriftInput(DatasetRef("It Space", "r1")), "give NAMESPACE/REVISION"),
    (VerifierDriftInput(DatasetRef("it", "../r1")), "give NAMESPACE/REVISION"),
    (VerifierDriftInput(DatasetRef("it", "nope")), "dataset it/nope not found"),
    (VerifierDriftInput(DatasetRef("it", "r1"), tolerance=-0.1), "tolerance -0.1"),
    (VerifierDriftInput(DatasetRef("it", "r1"), tolerance=float("nan")), "tolerance nan"),
    (VerifierDriftInput(DatasetRef("it", "r1"), probe_code="/nonexistent/candidate"), "no such folder"),
    (VerifierDriftInput(DatasetRef("it", "r1"), attacks="no"), "attacks 'no'"),  # type: ignore[arg-type]
    (VerifierDriftInput(DatasetRef("it", "r1")), "holds no publication"),
], ids=["namespace", "revision", "unknown", "negative", "nan", "probe-code", "attacks", "empty"])
def test_the_plan_refuses_bad_input_naming_it_and_writes_nothing(drift, tmp_path, req, words):
    before = sorted(p for p in (tmp_path / "var").rglob("*"))
    with pytest.raises(ApplicationError) as e:
        drift.plan_drift(req)
    assert e.value.type == INVALID_DRIFT_REQUEST and e.value.non_retryable and words in e.value.message
    assert sorted(p for p in (tmp_path / "var").rglob("*")) == before


@pytest.mark.parametrize("argv, words", [
    (["--dataset", "it"], "give NAMESPACE/REVISION"),
    (["--dataset", "it/r1/x"], "give NAMESPACE/REVISION"),
    (["--dataset", "it/nope"], "dataset it/nope not found"),
    (["--dataset", "it/r1", "--tolerance", "-1"], "--tolerance -1.0"),
    (["--dataset", "it/r1", "--probe-code", "/nonexistent/candidate"], "not a folder"),
], ids=["no-revision", "too-many-parts", "unknown", "negative", "probe-code"])
def test_the_command_refuses_bad_input_with_exit_2_before_any_server(argv, words, tmp_path, monkeypatch, capsys):
    from cli.arkevo import main

    var = tmp_path / "var"
    FilesystemObjects(var).put_if_absent(RevisionKeys("it", "r1").spec, b"{}")
    monkeypatch.setenv("ARKEVO_VAR", str(var))
    monkeypatch.setenv("ARKEVO_TEMPORAL_ADDRESS", "127.0.0.1:1")  # nothing listens: never reached
    before = sorted(var.rglob("*"))
    assert main(["verifier", "drift", *argv]) == 2
    assert words in capsys.readouterr().err.replace("\n", "")
    assert sorted(var.rglob("*")) == before


class FakeProbe:
    """Stands in for the warm probe: C02 fails on every delivery it is given (a stricter grader)."""

    def __init__(self) -> None:
        self.probed: list[bytes] = []

    def probe(self, blend: Path, task: Path, rubric: Path, out: Path) -> dict:
        self.probed.append(blend.read_bytes())
        return {"criteria": [
            {"id": "C01", "method": "object_exists", "weight": 0.5, "core": True, "score": 1.0, "passed": True},
            {"id": "C02", "method": "dimensions", "weight": 0.5, "core": True, "score": 0.0, "passed": False}]}


def test_which_stored_records_are_graded_again(tmp_path):
    """An infrastructure exception, a trial that delivered nothing and a delivery the store does
    not hold are listed, never probed; a solver's failure with a delivery is a graded attempt."""
    store = FilesystemStore(tmp_path / "store")
    delivered = store.put_bytes(b"a delivery").as_dict()
    score = store.put_json({"criteria": CRITERIA, "vl": None}).as_dict()
    grading = {"task_id": "t", "params": {}, "verification": {"weights": {"rule": 1.0, "vl": 0.0, "agent": 0},
                                                             "pass_threshold": 0.7, "core_failure_cap": 0.4}}
    probe = FakeProbe()
    regrade = Regrade(store, probe, tmp_path, tmp_path / "work", get_profile("rule-only", "1"), grading,
                      "vv2-1111111111111111", "not-weighted", 0.01)

    def record(**kw) -> dict:
        return {"reward": 1.0, "success": True, "delivery": delivered, "score": score, "failure": None,
                "exception": None, **kw}

    infra = regrade.trial("campaign", "c.t.llm.1", record(
        reward=None, success=None, failure={"kind": "infra", "type": "TrialInfraError", "message": "x"}),
        campaign_id="c")
    legacy = regrade.trial("evaluation", "t.oracle.2", record(exception={"type": "Boom", "message": "x"}))
    nothing = regrade.trial("evaluation", "t.nop.1", record(delivery=None))
    elsewhere = regrade.trial("evaluation", "t.oracle.3", record(delivery=store.ref_for("f" * 64, 3).as_dict()))
    assert not probe.probed
    for entry, why in ((infra, "infrastructure exception (TrialInfraError)"),
                       (legacy, "infrastructure exception (Boom)"), (nothing, "nothing was delivered"),
                       (elsewhere, "not in this content store")):
        assert not entry["rescored"] and not entry["drift"] and why in entry["not_rescored"], entry
    solver = regrade.trial("evaluation", "t.oracle.1", record(
        failure={"kind": "solver", "type": "DeliveryBrokeBlender", "message": "x"}))
    assert probe.probed == [b"a delivery"] and solver["rescored"]
    assert solver["verdict_flip"] and solver["new_reward"] == 0.4 and solver["criteria_changed"] == ["C02"]
    row = {"sample": "reference", "kind": "reference", "reward": 1.0, "success": True, "criteria": CRITERIA,
           "delivery": delivered, "vl": None, "failure": None}
    entry, new = regrade.calibration(row)
    assert entry["verdict_flip"] and new is not None and new["verifier_version"] == "vv2-1111111111111111"
    # the same delivery stored again (a calibration reference that is a trial's delivery too):
    # probed once, each record graded from its own copy of the report
    assert probe.probed == [b"a delivery"]
    again = regrade.trial("evaluation", "t.oracle.4", record())
    assert probe.probed == [b"a delivery"] and again["rescored"] and again["new_reward"] == 0.4


def _report(created_at: str, tasks: list[dict]) -> dict:
    return {"report_version": "1", "namespace": "rv", "revision": "r1", "created_at": created_at, "tolerance": 0.01,
            "attacks": True,
            "verifier_code": {"id": "vc-000000000000", "files": {}, "candidate": None, "replaced": []},
            "frozen_verifier_versions": [], "current_verifier_versions": [], "summary": summarize(tasks),
            "tasks": tasks}


def test_the_review_site_shows_the_newest_drift_report(tmp_path):
    from review_site.build import build_site
    from review_site.sources import SiteSourceError, Source
    from tests.site_support.publications import frozen_revision

    var = tmp_path / "var"
    source = Source(FilesystemObjects(var), FilesystemStore(var / "store"))
    frozen_revision(source, tmp_path)
    built = build_site(source, tmp_path / "plain", dataset=("rv", "r1"))
    assert not (built.out / "drift.html").exists() and "Verifier drift" not in built.index.read_text()

    keys = RevisionKeys("rv", "r1")
    same = record_entry("evaluation", "table-model.oracle.1", graded(1.0, True), graded(1.0, True), 0.01)
    flip = record_entry("calibration", "variant:legs", graded(1.0, True), graded(0.4, False), 0.01)
    source.objects.put_if_absent(keys.drift_report("vc-000000000000", "a" * 12), json.dumps(
        _report("2026-12-01T00:00:00+00:00", [_task("table-model", [same])])).encode())
    source.objects.put_if_absent(keys.drift_report("vc-000000000000", "b" * 12), json.dumps(
        _report("2026-12-02T00:00:00+00:00", [_task("table-model", [same, flip])])).encode())
    out = build_site(source, tmp_path / "site", dataset=("rv", "r1")).out
    index, page = (out / "index.html").read_text(), (out / "drift.html").read_text()
    assert "Verifier drift" in index and 'href="drift.html"' in index and "2026-12-02" in index
    assert "variant:legs" in page and "flip" in page and 'href="tasks/table-model.html"' in page
    assert "deliveries only" not in page
    only = {**_report("2026-12-03T00:00:00+00:00", [_task("table-model", [same])]), "attacks": False}
    source.objects.put_if_absent(keys.drift_report("vc-000000000000", "d" * 12), json.dumps(only).encode())
    page = (build_site(source, tmp_path / "site", dataset=("rv", "r1")).out / "drift.html").read_text()
    assert "deliveries only: the references were not attacked again" in page

    source.objects.put_if_absent(keys.drift_report("vc-000000000000", "c" * 12), b'{"report_version": "1"}')
    with pytest.raises(SiteSourceError, match="not a verifier drift report"):
        build_site(source, tmp_path / "site", dataset=("rv", "r1"))
