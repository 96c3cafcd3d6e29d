"""Where a preflight is stored and that it keeps its contract (`preflight` schema): the
campaign's own at campaigns/<id>/preflight.json, a recovery round's in the round's folder (the
real activities on a real object store in a temporary folder); a report that breaks the
contract is refused naming the file and field, with nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from activities.campaigns import CampaignActivities
from activities.preflight import PreflightActivities
from campaigns.layout import CampaignKeys
from contracts.errors import MODEL_ENDPOINT_UNREACHABLE
from contracts.payloads.campaigns import EndpointCheck, PreflightInput, PreflightReport, SmokeTrial
from contracts.payloads.trials import SolverSpec
from contracts.validation import ContractError
from storage.content import FilesystemStore
from storage.objects import FilesystemObjects

PROJECT = Path(__file__).resolve().parents[2]


def activities(tmp_path: Path) -> tuple[FilesystemObjects, CampaignActivities]:
    objects = FilesystemObjects(tmp_path / "objects")
    return objects, CampaignActivities(FilesystemStore(tmp_path / "store"), objects, PROJECT)


def report(recovery_round: int | None) -> PreflightReport:
    return PreflightReport("c1", "2026-11-30T00:00:00+00:00", "gpu-1:42", [EndpointCheck(
        ["llm-default"], "http://127.0.0.1:9/v1", "fake-model", None, False, 0.01, MODEL_ENDPOINT_UNREACHABLE,
        "ConnectError: [Errno 111] Connection refused")], None, recovery_round)


def test_a_recovery_rounds_preflight_is_stored_in_its_folder_the_campaigns_stays(tmp_path):
    objects, campaigns = activities(tmp_path)
    keys = CampaignKeys("c1")
    campaigns.record_preflight(PreflightReport("c1", "2026-11-30T00:00:00+00:00", "gpu-1:42", [],
                                               SmokeTrial("alpha", True, 2.5, "5.2.0", 3)))
    own = objects.get(keys.preflight)
    location = campaigns.record_preflight(report(2))
    assert location == objects.location(keys.recovery_preflight(2))
    assert keys.recovery_preflight(2) == "campaigns/c1/recoveries/002/preflight.json"
    assert objects.get(keys.preflight) == own  # the campaign's own check is not replaced
    doc = json.loads(objects.get(keys.recovery_preflight(2)))
    assert doc["recovery_round"] == 2 and doc["ok"] is False and doc["smoke"] is None
    assert doc["failure"]["type"] == MODEL_ENDPOINT_UNREACHABLE
    assert "config(s) llm-default" in doc["failure"]["message"]
    assert json.loads(own)["recovery_round"] is None and json.loads(own)["ok"] is True


def test_a_report_that_breaks_the_contract_is_refused_and_nothing_written(tmp_path):
    objects, campaigns = activities(tmp_path)
    bad = report(None)
    bad.endpoints[0].config_ids = []  # a check of no config
    with pytest.raises(ContractError) as refused:
        campaigns.record_preflight(bad)
    assert refused.value.field == "endpoints[0].config_ids"
    assert refused.value.file == objects.location(CampaignKeys("c1").preflight)
    assert not objects.exists(CampaignKeys("c1").preflight)


async def test_the_activity_reports_the_round_it_was_asked_for():
    """No model config and no task: nothing to ping, no smoke trial; the round comes back."""
    scripted = SolverSpec("oracle", "oracle", "scripted", "scripted policy — not a model result", None, None)
    got = await PreflightActivities(trials=None).preflight_campaign(  # type: ignore[arg-type]
        PreflightInput("c1", [scripted], None, 3))
    assert got.recovery_round == 3 and got.endpoints == [] and got.smoke is None and got.failure is None
