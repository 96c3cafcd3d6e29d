"""Lineage-safe splits on the real path (issue 25, point 2): a real dev server, the real worker
pools and the FAKE OpenAI-compatible endpoint (tests/fakes: scripted replies, not a model).

Revision lin-it/r1 (two root tasks of two sources, published through the real `publish_task`
with stand-in frozen packages: no Blender) is frozen into train and test. A TaskDerivation from
its test task is refused before any model call; one from its train task derives a seed whose
`seed.json` declares the train task's root and family, pinned to train. The derived seed's own
TaskProduction admits it (the real admission records the lineage) and stops at stage 03, where
no reviewer endpoint is configured (authoring is not under test here: test_model_authoring.py
covers it). Its admission record then publishes into lin-it/r2: the chain link and task.toml
carry the root and family, and `arkevo dataset freeze-check --json` places it beside its
family in train while naming a planted cross-revision pair (a new seed from the source of
r1's test task) with both tasks, both splits and the shared family.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import tomllib
from pathlib import Path

import pytest
from temporalio.client import WorkflowFailureError

from activities.packaging import PackagingActivities
from cli.arkevo import main
from contracts import queues
from contracts.errors import HELD_OUT_DERIVATION_SOURCE
from contracts.payloads.admission import AdmissionResult
from contracts.payloads.common import DatasetRef
from contracts.payloads.derivation import DerivationInput, DerivationResult
from contracts.payloads.packaging import PublishInput
from dataset_revisions.chain import read_chain
from dataset_revisions.freeze import freeze
from dataset_revisions.layout import RevisionKeys
from tests.fakes.derivation_sessions import candidates_reply, pattern_reply, table_like_candidate
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.author_sessions import route_by_role_and_seed
from tests.unit.test_dataset_revisions import open_revision
from tests.unit.test_lineage import Namespace
from tests.unit.test_rerun_consistency import draft_package, evaluation, publish_reviewed
from tests.unit.test_rerun_consistency import freeze as freeze_task

pytestmark = [pytest.mark.temporal, pytest.mark.timeout(600)]

NOW = "2026-12-02T12:00:00+00:00"
NS = "lin-it"
R1, R2 = RevisionKeys(NS, "r1"), RevisionKeys(NS, "r2")
SPEC = {"namespace": NS, "revision": "r1", "seeds": ["seeds/table-model"], "splits": {"train": 1, "test": 1},
        "max_per_source": 2, "selection_seed": 1}
FAMILY = {"oak": "src-oak", "pine": "src-pine"}
SECRET = "sk-fake-lineage-key-0123456789"


async def test_a_derived_tasks_lineage_is_carried_and_a_cross_split_pair_is_named(
        temporal_env, workers, settings, store, tmp_path, monkeypatch):
    objects = settings.objects()
    frozen = freeze_task(store, tmp_path, draft_package(store, tmp_path), "c", NOW)
    ns = Namespace(objects, store, frozen, tmp_path)
    open_revision(objects, SPEC)
    ns.publish_into(NS, "r1", "oak", FAMILY["oak"])
    ns.publish_into(NS, "r1", "pine", FAMILY["pine"], workflow="MAT-01", profession="PRF-LOOKDEV")
    freeze(objects, R1, NOW)
    manifest = json.loads(objects.get(R1.manifest))
    split_of = {e["task_id"]: split for split, entries in manifest["splits"].items() for e in entries}
    train, held = sorted(split_of, key=lambda t: split_of[t] != "train")
    assert (split_of[train], split_of[held]) == ("train", "test")
    task_dir = {link.task_id: Path(objects.location(link.publication_key)) / "task"
                for link in read_chain(objects, R1)}

    desk = table_like_candidate("writing-desk", "Writing desk", "writing desk", 1.40, 0.70, 0.74, 0.03,
                                0.05, top_name="DeskTop", leg_prefix="DeskLeg", material="Oak")
    fake = FakeOpenAIServer({"deriver:table-model": [pattern_reply(), candidates_reply([desk])]},
                            route=route_by_role_and_seed).start()
    try:
        monkeypatch.setenv("ARKEVO_AUTHOR_BASE_URL", fake.base_url)
        monkeypatch.setenv("ARKEVO_AUTHOR_API_KEY", SECRET)
        monkeypatch.delenv("ARKEVO_REVIEWER_BASE_URL", raising=False)  # the derived production stops at 03

        # 1. the test task: refused, before any model call
        with pytest.raises(WorkflowFailureError) as refused:
            await temporal_env.client.execute_workflow(
                "TaskDerivation", DerivationInput([str(task_dir[held])], tasks_per_seed=1),
                id="it-lineage-held-out", task_queue=queues.CONTROL, result_type=DerivationResult)
        cause = refused.value.cause
        assert getattr(cause, "type", None) == HELD_OUT_DERIVATION_SOURCE, cause
        assert f"held-out split test of {NS}/r1" in str(cause) and str(task_dir[held]) in str(cause)
        assert fake.requests == []

        # 2. the train task: a derived seed of its family, pinned to train
        wid = "it-lineage-train"
        result = await temporal_env.client.execute_workflow(
            "TaskDerivation", DerivationInput([str(task_dir[train])], tasks_per_seed=1,
                                              out_dir=str(tmp_path / "derived")),
            id=wid, task_queue=queues.CONTROL, result_type=DerivationResult)
    finally:
        fake.stop()
    [task] = result.tasks
    assert (task.seed_id, task.status) == ("writing-desk", "failed") and "ModelNotConfigured" in task.reason
    declared = json.loads((Path(task.seed_path) / "seed.json").read_text())["provenance"]
    train_link = next(link for link in read_chain(objects, R1) if link.task_id == train)
    assert declared["lineage"] == {
        "root_seed": train, "family": FAMILY[train], "split": "train",
        "derived_from": [{"task_id": train, "task_version": train_link.task_version,
                          "publication_sha256": train_link.publication_sha256,
                          "namespace": NS, "revision": "r1", "split": "train"}]}
    assert declared["source"].startswith("derived from table-model (")  # its own, new source

    # 3. the real admission of the derived seed (its TaskProduction's stage 02) recorded it
    admitted = await temporal_env.client.get_workflow_handle(
        f"{wid}.writing-desk.02-admission", result_type=AdmissionResult).result()
    record = store.get_json(admitted.admission_record)
    assert record["lineage"] == declared["lineage"]

    # 4. published into r2 beside a planted seed from the source of r1's test task
    open_revision(objects, {**SPEC, "revision": "r2", "splits": {"train": 2}})
    identity = dataclasses.replace(frozen.identity, task_id="writing-desk")
    publish_reviewed(PackagingActivities(store, objects), PublishInput(
        "writing-desk", dataclasses.replace(frozen, task_id="writing-desk", identity=identity),
        evaluation(store, "run-1"), admitted.admission_record, NOW, None, DatasetRef(NS, "r2")))
    ns.publish_into(NS, "r2", "birch", FAMILY[held])
    link = next(link for link in read_chain(objects, R2) if link.task_id == "writing-desk")
    assert (link.lineage_root, link.lineage_family, link.lineage_split) == (train, FAMILY[train], "train")
    meta = tomllib.loads((Path(objects.location(link.publication_key)) / "task" / "task.toml").read_text())["metadata"]
    assert (meta["lineage_root"], meta["lineage_family"], meta["lineage_split"]) == (train, FAMILY[train], "train")

    # 5. freeze-check, as the command runs it
    monkeypatch.setenv("ARKEVO_VAR", str(settings.var))
    for name in ("ARKEVO_STORE", "ARKEVO_OBJECTS"):
        monkeypatch.delenv(name, raising=False)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["dataset", "freeze-check", "--namespace", NS, "--revision", "r2", "--json"])
    report = json.loads(out.getvalue())
    assert code == 1 and not report["freeze_ready"]
    assert report["splits"]["train"]["tasks"] == ["birch", "writing-desk"]
    assert sorted(report["splits"]["train"]["families"]) == sorted(FAMILY.values())
    across = [g["message"] for g in report["gaps"] if g["rule"] == "lineage_across_revisions"]
    assert across == [f"task birch (train) and task {held} (test of {NS}/r1) share lineage family "
                      f"{FAMILY[held]!r} (roots 'birch', {held!r})"], report["gaps"]
    [pair] = report["lineage_pairs"]
    assert (pair["a"]["task_id"], pair["b"]["task_id"], pair["b"]["revision"], pair["b"]["split"]) == (
        "birch", held, "r1", "test")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["dataset", "freeze-check", "--namespace", NS, "--revision", "r2"]) == 1
    assert f"gap lineage_across_revisions: {across[0]}" in printed.getvalue()
