"""`arkevo campaign`: help without side effects, bad input exit 2, and report / status / report
--rebuild on a campaign written by the real campaign activities (no server needed for those)."""

from __future__ import annotations

import json

import pytest

from activities.campaigns import CampaignActivities
from storage.content import FilesystemStore
from cli.arkevo import main
from contracts.payloads.campaigns import (CampaignInput, CampaignTrialInput, PlanCampaignInput,
                                          RecordTrialInput)
from contracts.payloads.common import DatasetRef
from contracts.payloads.trials import MeasuredCost, TrialOutcome
from storage.objects import FilesystemObjects
from tests.campaign_support.publications import write_frozen_revision
from workers.settings import PROJECT_ROOT


@pytest.fixture
def var(tmp_path, monkeypatch):
    monkeypatch.setenv("ARKEVO_VAR", str(tmp_path))
    monkeypatch.delenv("ARKEVO_STORE", raising=False)
    monkeypatch.delenv("ARKEVO_OBJECTS", raising=False)
    monkeypatch.setenv("ARKEVO_TEMPORAL_ADDRESS", "127.0.0.1:1")  # nothing listens: no server
    return tmp_path


@pytest.mark.parametrize("argv", [["campaign"], ["campaign", "start"], ["campaign", "status"],
                                  ["campaign", "report"], ["campaign", "recover"],
                                  ["campaign", "resume"]])
def test_help_exits_zero_and_writes_nothing(argv, var, capsys):
    with pytest.raises(SystemExit) as e:
        main([*argv, "--help"])
    assert e.value.code == 0
    assert "usage: arkevo campaign" in capsys.readouterr().out
    assert list(var.iterdir()) == []


@pytest.mark.parametrize("argv, words", [
    (["campaign", "start", "--mode", "pilot"], "--dataset NAMESPACE/REVISION"),
    (["campaign", "start", "--dataset", "demo", "--split", "test"], "NAMESPACE/REVISION"),
    (["campaign", "report", "nope"], "no report for campaign nope"),
    (["campaign", "status", "nope"], "campaign nope not found"),
    (["campaign", "start", "--publication", "p", "--id", "c", "--breaker", "6/5"], "--breaker '6/5'"),
    (["campaign", "start", "--publication", "p", "--id", "c", "--breaker", "lots"], "FAILURES/WINDOW"),
    (["campaign", "resume", "nope"], "cannot reach the Temporal server"),
])
def test_bad_input_exits_2_naming_the_problem(argv, words, var, capsys):
    assert main(argv) == 2
    assert words in capsys.readouterr().err


def test_report_status_and_rebuild_read_the_store(var, capsys):
    objects, store = FilesystemObjects(var), FilesystemStore(var / "store")
    write_frozen_revision(objects, store, "d", "r1", {"test": ["alpha", "beta"]})
    acts = CampaignActivities(store, objects, PROJECT_ROOT)
    plan = acts.plan_campaign(PlanCampaignInput(
        CampaignInput("c1", mode="pilot", dataset=DatasetRef("d", "r1"), split="test",
                      bootstrap_samples=200), "2026-11-30T00:00:00+00:00"))
    assert [t.trial_id for t in plan.trials] == ["c1.alpha.oracle.1", "c1.alpha.nop.1",
                                                 "c1.beta.oracle.1", "c1.beta.nop.1"]
    for spec in plan.trials:
        solver = plan.configs[spec.config]
        reward = 1.0 if solver.config_id == "oracle" else 0.2
        outcome = TrialOutcome(spec.trial_id, solver.config_id, "campaign", 1, reward, reward >= 0.7,
                               plan.tasks[spec.task].frozen.verifier_version,
                               started_at="2026-11-30T00:00:00+00:00",
                               finished_at="2026-11-30T00:00:05+00:00", cost=MeasuredCost(wall_sec=5.0))
        acts.record_campaign_trial(RecordTrialInput(CampaignTrialInput(
            "c1", spec.trial_id, plan.tasks[spec.task], solver, 1, 4), outcome))

    assert main(["campaign", "status", "c1"]) == 0
    assert "c1: 4/4 trials recorded" in capsys.readouterr().out
    assert main(["campaign", "report", "c1", "--rebuild"]) == 0
    out = capsys.readouterr().out
    assert "| oracle vs nop | original | 2 | 2 / 0 / 0 | 2 / 0 | 0.5000 |" in out
    assert "scripted policy — not a model result" in out
    assert main(["campaign", "report", "c1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    figs = {c["config"]: c for c in report["original"]["groups"][0]["configs"]}
    assert figs["oracle"]["avg_at_k"]["mean"] == 1.0 and figs["nop"]["reward_delta"]["n"] == 2
    # input rewards 0.1 and 0.2 (write_frozen_revision): nop's delta is 0.2 - 0.15
    assert figs["nop"]["reward_delta"]["mean"] == pytest.approx(0.05)
    assert report["original"]["cost"]["campaign"]["wall_sec"] == 20.0


def test_a_grade_from_another_verifier_version_is_never_pooled(var, capsys):
    objects, store = FilesystemObjects(var), FilesystemStore(var / "store")
    write_frozen_revision(objects, store, "d", "r1", {"test": ["alpha"]})
    acts = CampaignActivities(store, objects, PROJECT_ROOT)
    plan = acts.plan_campaign(PlanCampaignInput(
        CampaignInput("c2", mode="pilot", dataset=DatasetRef("d", "r1"), split="test",
                      configs=["oracle"]), "2026-11-30T00:00:00+00:00"))
    spec = plan.trials[0]
    outcome = TrialOutcome(spec.trial_id, "oracle", "campaign", 1, 1.0, True, "vv2-from-other-code",
                           started_at="2026-11-30T00:00:00+00:00", finished_at="2026-11-30T00:00:05+00:00")
    acts.record_campaign_trial(RecordTrialInput(CampaignTrialInput(
        "c2", spec.trial_id, plan.tasks[0], plan.configs[0], 1, 4), outcome))
    assert main(["campaign", "report", "c2", "--rebuild"]) == 1
    err = capsys.readouterr().err
    assert "IncomparableFigures" in err and "vv2-from-other-code" in err and "never pooled" in err
    assert not (var / "campaigns" / "c2" / "report.json").exists()


def test_an_interrupted_recovery_round_is_finished_not_restarted(var):
    """The backup is written, one of two named trials was rerun, then the round stopped: the
    same request resumes round 1 and reruns only the trial still without its new record."""
    from contracts.payloads.campaigns import PlanRecoveryInput, RecoveryInput
    from contracts.payloads.trials import TrialFailure

    objects, store = FilesystemObjects(var), FilesystemStore(var / "store")
    write_frozen_revision(objects, store, "d", "r1", {"test": ["alpha", "beta"]})
    acts = CampaignActivities(store, objects, PROJECT_ROOT)
    plan = acts.plan_campaign(PlanCampaignInput(
        CampaignInput("c3", mode="pilot", dataset=DatasetRef("d", "r1"), split="test",
                      configs=["oracle"]), "2026-11-30T00:00:00+00:00"))
    inputs = [CampaignTrialInput("c3", s.trial_id, plan.tasks[s.task], plan.configs[0], 1, 4)
              for s in plan.trials]
    for t in inputs:  # both attempts lost to the infrastructure
        acts.record_campaign_trial(RecordTrialInput(t, TrialOutcome(
            t.trial_id, "oracle", "campaign", 1, None, None, None, started_at="2026-11-30T00:00:00+00:00",
            finished_at="2026-11-30T00:00:01+00:00",
            failure=TrialFailure("infra", "TrialInfraError", "slot pool exhausted"))))
    ids = [t.trial_id for t in inputs]
    request = PlanRecoveryInput(RecoveryInput("c3", ids, "outage", "ops"), "2026-11-30T01:00:00+00:00")
    first = acts.plan_recovery(request)
    assert first.round == 1 and [t.trial_id for t in first.trials] == ids
    done = first.trials[0]
    acts.record_campaign_trial(RecordTrialInput(done, TrialOutcome(
        done.trial_id, "oracle", "campaign", 1, 1.0, True, done.task.frozen.verifier_version,
        started_at="2026-11-30T01:00:00+00:00", finished_at="2026-11-30T01:00:05+00:00")))
    again = acts.plan_recovery(request)
    assert again.round == 1 and [t.trial_id for t in again.trials] == ids[1:]
