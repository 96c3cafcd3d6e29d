"""`arkevo dataset report` (issue 25, point 4) on a real revision in a real store: publications
made by the real `publish_task`, each with the records the pipeline writes (the pilot record,
the calibration report's samples, stage-06 trial records with what each trial measured, one
model-authored task's authoring record), and seed outcomes as DatasetProduction records them —
two seeds lost, at 02 and at 05. The funnel, each loss by stage and failure kind, and the cost
per stage and per accepted task are what those records say."""

from __future__ import annotations

import dataclasses
import json

import pytest

from activities.datasets import DatasetActivities
from activities.packaging import PackagingActivities
from cli.arkevo import main as arkevo
from contracts.payloads.authoring import TaskIdentity
from contracts.payloads.common import DatasetRef
from contracts.payloads.datasets import SeedOutcome
from contracts.payloads.evaluation import EvaluationResult
from contracts.payloads.packaging import PublishInput
from dataset_revisions.freeze import freeze
from dataset_revisions.report import dataset_report
from dataset_revisions.revision import DatasetNotFound
from dataset_revisions.layout import RevisionKeys
from tests.unit.test_dataset_revisions import KEYS, NOW, TASKS, open_demo_revision
from tests.unit.test_rerun_consistency import publish_reviewed


def cost(wall: float, cpu: float | None, calls: int | None = None) -> dict:
    return {"wall_sec": wall, "agent_sec": None, "model_calls": calls, "input_tokens": calls and 100 * calls,
            "output_tokens": calls and 10 * calls, "agent_steps": None, "sandbox_cpu_sec": cpu, "gpu_sec": None}


def publish_with_records(revision, task_id: str, authored_by_model: bool = False):
    source, workflow, profession = TASKS[task_id]
    store = revision.store
    identity = TaskIdentity(task_id, "v1-x", "vv2-00000000000000aa", "", workflow, profession)
    calibration = store.put_json({"samples": [
        {"sample": "reference", "trial_stage": "authoring", "cost": cost(10, 5)},  # stage 03's, counted there
        {"sample": "defect:a", "trial_stage": "calibration", "cost": cost(30, 12)},
        {"sample": "variant:b", "trial_stage": "calibration", "cost": None}],  # not measured
        "mutations": {"survivors": [], "cost": {"wall_sec": 15.0}}})  # one run, its wall only
    frozen = dataclasses.replace(revision.frozen, task_id=task_id, identity=identity, calibration_report=calibration)
    pilot = store.put_json({"trials": [{"stage": "authoring", "cost": cost(10, 5)},
                                       {"stage": "pilot", "cost": cost(20, 8)}]})
    trials = b"".join(json.dumps({"trial_id": f"{task_id}/{c}/1", "cost": spent}).encode() + b"\n"
                      for c, spent in (("oracle", cost(40, 15)), ("llm", cost(60, 20, calls=3))))
    evaluation = EvaluationResult(store.put_json({"plan": task_id}), store.put_bytes(trials),
                                  store.put_json({"report": task_id}), [])
    authoring = store.put_json({"totals": {"wall_seconds": 30.0}, "usage": [
        {"role": "author", "model": "m", "model_calls": 4, "prompt_tokens": 1000, "completion_tokens": 200,
         "seconds": 20.0},
        {"role": "reviewer", "model": "m", "model_calls": 1, "prompt_tokens": 300, "completion_tokens": 20,
         "seconds": 2.0}]}) if authored_by_model else None
    return publish_reviewed(PackagingActivities(store, revision.objects), PublishInput(
        task_id, frozen, evaluation, store.put_json({"provenance": {"source": source}}), NOW, authoring,
        DatasetRef(KEYS.namespace, KEYS.revision), pilot_record=pilot))


def outcome(seed_id: str, state: str, started: str, at: str, **more) -> SeedOutcome:
    return SeedOutcome(KEYS.namespace, KEYS.revision, f"seeds/{seed_id}", seed_id, state,
                       f"dataset-demo-r1.{seed_id}", at, started_at=started, **more)


@pytest.fixture
def produced(tmp_path):
    revision = open_demo_revision(tmp_path)
    record = DatasetActivities(revision.objects, revision.tmp).record_seed_outcome
    for n, task_id in enumerate(TASKS):
        published = publish_with_records(revision, task_id, authored_by_model=task_id == "alpha")
        record(outcome(task_id, "published", "2026-11-30T10:00:00+00:00", f"2026-11-30T10:0{n + 1}:00+00:00",
                       publication_id=published.publication_id, task_id=task_id))
    record(outcome("bad", "failed", "2026-11-30T10:00:00+00:00", "2026-11-30T10:00:05+00:00",
                   reason="InvalidSeed: seeds/bad/seed.json: title: missing", stage="02-admission",
                   failure_type="InvalidSeed"))
    record(outcome("shaky", "failed", "2026-11-30T10:00:00+00:00", "2026-11-30T10:03:00+00:00",
                   reason="CalibrationFailed: margin 0.05 < 0.2", stage="05-review",
                   failure_type="CalibrationFailed"))
    return revision


def test_the_funnel_names_every_loss_by_stage_and_failure_kind(produced):
    report = dataset_report(produced.objects, KEYS)
    assert report.funnel == {"submitted": 6, "admitted": 5, "authored": 5, "calibrated": 4, "published": 4,
                             "frozen": 0}  # not frozen yet
    assert {(loss.seed_id, loss.lost_at, loss.stage, loss.failure_type) for loss in report.losses} == {
        ("bad", "admitted", "02-admission", "InvalidSeed"), ("shaky", "calibrated", "05-review", "CalibrationFailed")}
    assert report.losses_by_kind == {"02-admission InvalidSeed": 1, "05-review CalibrationFailed": 1}
    assert report.accepted == 4  # published, while the revision is not frozen
    freeze(produced.objects, KEYS, NOW)
    frozen = dataset_report(produced.objects, KEYS)
    assert frozen.frozen and frozen.funnel["frozen"] == 4 and frozen.accepted == 4


def test_cost_per_stage_and_per_accepted_task_is_what_the_records_measured(produced):
    report = dataset_report(produced.objects, KEYS)
    by_stage = {c.stage: c for c in report.costs}
    authoring = by_stage["03-authoring"]  # alpha's authoring record, and every task's carried trials
    assert (authoring.model_calls, authoring.input_tokens, authoring.output_tokens) == (5, 1300, 220)
    assert authoring.by_role == {"author": {"model_calls": 4, "input_tokens": 1000, "output_tokens": 200},
                                 "reviewer": {"model_calls": 1, "input_tokens": 300, "output_tokens": 20}}
    assert authoring.wall_sec == 30.0 + 4 * 10 and authoring.sandbox_cpu_sec == 4 * 5
    assert (by_stage["04-trial-solves"].wall_sec, by_stage["04-trial-solves"].sandbox_cpu_sec) == (80, 32)
    calibration = by_stage["05-review"]  # the unmeasured variant counts as a record, not as zero
    # 2 samples and 1 mutation testing run per task: its wall counted, its CPU not measured
    assert (calibration.records, calibration.wall_sec, calibration.sandbox_cpu_sec) == (12, 120 + 4 * 15, 48)
    evaluation = by_stage["06-evaluation"]
    assert (evaluation.records, evaluation.wall_sec, evaluation.sandbox_cpu_sec) == (8, 400, 140)
    assert (evaluation.model_calls, evaluation.input_tokens, evaluation.output_tokens) == (12, 1200, 120)
    # every seed's production, lost ones included: 1+2+3+4 minutes, 5 s and 3 minutes
    assert report.production_wall_sec == 60 * (1 + 2 + 3 + 4) + 5 + 180
    assert report.per_accepted_task == {
        "production_wall_sec": round(report.production_wall_sec / 4, 3),
        "sandbox_cpu_sec": (20 + 32 + 48 + 140) / 4, "model_calls": (5 + 12) / 4,
        "tokens": (1300 + 220 + 1200 + 120) / 4}


def test_the_command_prints_the_funnel_and_the_cost(produced, monkeypatch, capsys):
    monkeypatch.setenv("ARKEVO_VAR", str(produced.tmp / "var"))
    assert arkevo(["dataset", "report", "--namespace", "demo", "--revision", "r1"]) == 0
    out = capsys.readouterr().out
    assert "05-review CalibrationFailed ×1" in out and "lost shaky before calibrated" in out
    assert "cost (accepted tasks: 4)" in out
    assert arkevo(["dataset", "report", "--namespace", "demo", "--revision", "r1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["funnel"]["published"] == 4


def test_an_unknown_revision_is_named_and_nothing_is_written(produced, monkeypatch, capsys):
    before = produced.objects.list("")
    with pytest.raises(DatasetNotFound, match="dataset demo revision r9 not found"):
        dataset_report(produced.objects, RevisionKeys("demo", "r9"))
    monkeypatch.setenv("ARKEVO_VAR", str(produced.tmp / "var"))
    assert arkevo(["dataset", "report", "--namespace", "demo", "--revision", "r9"]) == 2
    assert "revision r9 not found" in capsys.readouterr().err
    assert produced.objects.list("") == before
