"""A campaign over an unfrozen revision's candidates writes its difficulty record, with the
trials mocked (no Blender, seconds): the real EvaluationCampaign and CampaignRecovery on a dev
server of their own, the real campaign activities on real files — a revision with a spec that
asks for a band, two committed candidates, no freeze. Only the gpu side is the stand-in of
test_evaluation_campaign_mocked (oracle passes, nop fails, the model config passes; one planted
infrastructure exception, the scripted configs are scripted policies, not models).

Checked: the plan's source is the candidates target, each task held to its chain link's
publication sha256; the difficulty record beside the revision counts per task and config, the
infrastructure exception not scored; freeze-check reads it (every candidate in band); a recovery
rewrites the record from the recovered set."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor

from activities.campaigns import CampaignActivities
from campaigns.layout import CampaignKeys
from contracts import queues
from contracts.payloads.campaigns import CampaignResult, RecoveryInput
from contracts.payloads.common import DatasetRef
from dataset_revisions.chain import read_chain
from dataset_revisions.freeze import freeze_check
from dataset_revisions.layout import RevisionKeys
from storage.content import FilesystemStore
from storage.objects import FilesystemObjects
from tests.campaign_support.publications import write_candidate_revision
from tests.orchestration.test_evaluation_campaign_mocked import (BROKEN, PROJECT, Gpu, campaign_workers,
                                                                 t1_request)

SPEC = {"namespace": "tb", "revision": "c1", "seeds": ["seeds/alpha", "seeds/beta"], "splits": {"test": 2},
        "max_per_source": 1, "bands": {"test": {"solved_by": "oracle", "not_always_solved_by": "nop"}}}
KEYS = RevisionKeys("tb", "c1")


async def test_a_candidates_campaign_writes_the_difficulty_record_freeze_check_reads(env, tmp_path):
    objects = FilesystemObjects(tmp_path / "objects")
    store = FilesystemStore(tmp_path / "store")
    write_candidate_revision(objects, store, SPEC, ["alpha", "beta"])
    gpu = Gpu(objects)
    campaigns = CampaignActivities(store, objects, PROJECT)
    unmeasured = freeze_check(objects, KEYS)
    assert [b.status for b in unmeasured.bands] == ["unmeasured", "unmeasured"]
    assert not unmeasured.freeze_ready

    # no split: the revision's committed candidates (it is not frozen)
    req = t1_request(tmp_path, DatasetRef("tb", "c1"), None)
    with ThreadPoolExecutor(8) as pool:
        control, cpu, gpu_worker = campaign_workers(env, gpu, campaigns, pool)
        async with control, cpu, gpu_worker:
            handle = await env.client.start_workflow("EvaluationCampaign", req, id="campaign-t1",
                                                     task_queue=queues.CONTROL, result_type=CampaignResult)
            result = await asyncio.wait_for(handle.result(), 90)
            assert result.trials == 14 and result.exceptions == [BROKEN]  # (3 + 3 + 1) x 2 tasks

            plan = json.loads(objects.get(CampaignKeys("t1").plan))
            assert plan["source"]["dataset"] == {"namespace": "tb", "revision": "c1", "split": None,
                                                 "manifest_sha256": None, "target": "candidates"}
            links = {link.task_id: link for link in read_chain(objects, KEYS)}
            assert {t["task_id"]: t["publication_sha256"] for t in plan["tasks"]} == {
                t: link.publication_sha256 for t, link in links.items()}

            doc = json.loads(objects.get(KEYS.difficulty("t1")))
            assert (doc["target"], doc["split"], doc["recovery_round"]) == ("candidates", None, None)
            counts = {(t["task_id"], c["config_id"]): c for t in doc["tasks"] for c in t["configs"]}
            oracle, nop = counts[("alpha", "oracle")], counts[("alpha", "nop")]
            assert (oracle["k"], oracle["scored"], oracle["solved"], oracle["solve_rate"]) == (3, 3, 3, 1)
            assert (nop["scored"], nop["solved"], nop["solve_rate"]) == (3, 0, 0)
            assert oracle["interval"]["method"] == "wilson" and oracle["interval"]["low"] < 1 == oracle["interval"]["high"]
            assert oracle["label"] == nop["label"] == "scripted policy — not a model result"
            broken = counts[("beta", "llm-default")]  # the infrastructure exception: not a 0
            assert (broken["recorded"], broken["scored"], broken["infra_exceptions"]) == (1, 0, 1)
            assert broken["solve_rate"] is None and broken["kind"] == "model"

            measured = freeze_check(objects, KEYS)
            assert {b.task_id: b.status for b in measured.bands} == {"alpha": "in_band", "beta": "in_band"}
            assert measured.freeze_ready and measured.possibly_impossible == []

            gpu.outage = False
            recovered: CampaignResult = await asyncio.wait_for(env.client.execute_workflow(
                "CampaignRecovery", RecoveryInput("t1", [BROKEN], "sandbox slot outage", "ops"),
                id="campaign-t1-recover-1", task_queue=queues.CONTROL, result_type=CampaignResult), 60)
            assert recovered.exceptions == []
            doc = json.loads(objects.get(KEYS.difficulty("t1")))
            fixed = next(c for t in doc["tasks"] if t["task_id"] == "beta" for c in t["configs"]
                         if c["config_id"] == "llm-default")
            assert doc["recovery_round"] == 1 and (fixed["scored"], fixed["solved"], fixed["infra_exceptions"]) == (1, 1, 0)
