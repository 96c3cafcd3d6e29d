"""Retractions on the real store and real publications, no Blender (issue 25, point 5): the
hash-chained retraction record, an unknown task and a second retraction writing nothing,
`verify` walking the retraction chain, and freeze-check, freeze, campaign planning, exports,
the review site and the CLI leaving a retracted task out and saying so."""

from __future__ import annotations

import hashlib
import json
import zipfile
import pytest

from activities.campaigns import CampaignActivities
from cli.arkevo import main
from contracts.payloads.campaigns import CampaignInput, PlanCampaignInput
from contracts.payloads.common import DatasetRef
from contracts.validation import ContractError, build_document, validate_document
from dataset_revisions.chain import read_chain
from dataset_revisions.layout import RevisionKeys
from storage.content import FilesystemStore
from storage.objects import FilesystemObjects
from temporalio.exceptions import ApplicationError
from tests.campaign_support.publications import write_candidate_revision, write_frozen_revision
from tests.site_support.publications import frozen_revision
from dataset_revisions.freeze import freeze, freeze_check
from dataset_revisions.retraction import (UnknownTask, read_retractions, retract, retracted,
                                          retraction_bytes)
from dataset_revisions.verify import verify_revision
from exports.harbor_zip import TaskRetracted, export_split, export_task
from review_site.build import build_site
from review_site.sources import Source
from tests.unit.test_dataset_revisions import KEYS, NOW, TASKS, Revision, open_demo_revision
from workers.settings import PROJECT_ROOT

LATER = "2026-12-01T09:00:00+00:00"


@pytest.fixture
def rev(tmp_path) -> Revision:
    rev = open_demo_revision(tmp_path)
    for task in TASKS:
        rev.publish(task)
    return rev


def _listing(rev: Revision) -> list[str]:
    return rev.objects.list("")


def test_a_retraction_is_hash_chained_and_names_the_publication(rev):
    first = retract(rev.objects, KEYS, "gamma", "the reference renders the wrong material", "ana", NOW)
    second = retract(rev.objects, KEYS, "alpha", "license of the source withdrawn", "bo", LATER)
    assert not first.already_retracted and not second.already_retracted
    (doc1, bytes1, key1), (doc2, _, key2) = read_retractions(rev.objects, KEYS)
    assert key1 == KEYS.retraction(1) and key2 == KEYS.retraction(2)
    validate_document("retraction", doc1, key1)
    link = next(link for link in rev_links(rev) if link.task_id == "gamma")
    assert (doc1["publication_id"], doc1["publication_sha256"]) == (link.publication_id, link.publication_sha256)
    assert (doc1["reason"], doc1["by"], doc1["at"]) == ("the reference renders the wrong material", "ana", NOW)
    assert doc1["previous_retraction_sha256"] is None
    assert doc2["previous_retraction_sha256"] == hashlib.sha256(bytes1).hexdigest()
    assert sorted(retracted(rev.objects, KEYS)) == ["alpha", "gamma"]
    # the publications stay: the same files, and verify finds the chain whole
    assert all(rev.objects.exists(f"{link.publication_key}/publication.json") for link in rev_links(rev))
    assert verify_revision(rev.objects, KEYS).ok


def rev_links(rev: Revision):
    from dataset_revisions.chain import read_chain

    return read_chain(rev.objects, KEYS)


def test_an_unknown_task_or_a_blank_reason_writes_nothing(rev):
    before = _listing(rev)
    with pytest.raises(UnknownTask, match="'nope' has no committed publication"):
        retract(rev.objects, KEYS, "nope", "why", "ana", NOW)
    with pytest.raises(ContractError, match="reason"):
        retract(rev.objects, KEYS, "alpha", "  ", "ana", NOW)
    assert _listing(rev) == before


def test_retracting_twice_says_so_and_writes_nothing(rev):
    retract(rev.objects, KEYS, "beta", "duplicate of alpha", "ana", NOW)
    before = _listing(rev)
    again = retract(rev.objects, KEYS, "beta", "another reason", "bo", LATER)
    assert again.already_retracted and again.retraction["by"] == "ana"
    assert _listing(rev) == before


def test_verify_names_a_changed_retraction_and_a_broken_retraction_chain(rev):
    retract(rev.objects, KEYS, "gamma", "wrong material", "ana", NOW)
    retract(rev.objects, KEYS, "delta", "wrong scene", "ana", NOW)
    path = rev.objects.local_path(KEYS.retraction(1))
    path.chmod(0o644)
    path.write_text(path.read_text().replace("wrong material", "changed"))
    problems = verify_revision(rev.objects, KEYS).problems
    assert any("retractions/000002.json names previous" in p for p in problems), problems
    doc = json.loads(path.read_text())
    path.write_text(json.dumps({**doc, "publication_sha256": "0" * 64}))
    assert any("that is not in the chain" in p for p in verify_revision(rev.objects, KEYS).problems)


def test_freeze_check_and_freeze_leave_a_retracted_task_out_and_list_it(rev):
    retract(rev.objects, KEYS, "gamma", "wrong material", "ana", NOW)
    report = freeze_check(rev.objects, KEYS)
    chosen = {t for s in report.splits.values() for t in s.tasks}
    assert "gamma" not in chosen and "gamma" not in report.unused
    assert report.candidates == 3
    assert report.retracted == [{"task_id": "gamma", "reason": "wrong material", "by": "ana", "at": NOW}]
    assert not report.freeze_ready  # a split now lacks a task: the gap is named, not hidden
    assert any(g.rule == "split_minimums" for g in report.gaps)


def test_a_frozen_revision_keeps_its_manifest_and_exports_leave_the_task_out(rev, tmp_path):
    result = freeze(rev.objects, KEYS, NOW)
    manifest = rev.objects.get(KEYS.manifest)
    # the two-task source fills train (test_dataset_revisions)
    gone, kept = result.report.splits["train"].tasks
    retract(rev.objects, KEYS, gone, "license withdrawn", "ana", LATER)
    assert rev.objects.get(KEYS.manifest) == manifest and verify_revision(rev.objects, KEYS).ok

    folder = f"{KEYS.publications}/{gone}/{gone}-r1"
    out = export_split(rev.objects, "demo", "r1", "train", tmp_path / "train.zip")
    assert out.tasks == [kept] and out.retracted == [f"{gone} (license withdrawn, by ana)"]
    with zipfile.ZipFile(out.path) as zf:
        zmanifest = json.loads(zf.read("manifest.json"))
        assert not any(name.startswith(f"demo-r1-train/{gone}/") for name in zf.namelist())
    assert [r["task_id"] for r in zmanifest["source"]["retracted"]] == [gone]
    with pytest.raises(TaskRetracted, match="is retracted"):
        export_task(rev.objects, folder, tmp_path / "gone.zip")
    assert not (tmp_path / "gone.zip").exists()


def test_campaign_planning_leaves_a_retracted_task_out_and_the_plan_names_it(tmp_path):
    """The campaign stand-in publications (tests/campaign_support), with a retraction written as
    `retract` writes it: planning reads only the retraction."""
    objects, store = FilesystemObjects(tmp_path / "var"), FilesystemStore(tmp_path / "store")
    write_frozen_revision(objects, store, "dd", "r1", {"test": ["alpha", "beta"]})
    keys = RevisionKeys("dd", "r1")
    sha = json.loads(objects.get(keys.manifest))["splits"]["test"][0]["publication_sha256"]
    _write_retraction(objects, keys, "alpha", sha, "license withdrawn")
    acts = CampaignActivities(store, objects, PROJECT_ROOT)
    plan = acts.plan_campaign(PlanCampaignInput(CampaignInput(
        "c1", mode="pilot", dataset=DatasetRef("dd", "r1"), split="test", bootstrap_samples=200), NOW))
    assert [t.frozen.task_id for t in plan.tasks] == ["beta"]
    assert plan.retracted == ["alpha (license withdrawn, by ana)"]
    doc = json.loads(objects.get("campaigns/c1/evaluation-plan.json"))
    assert [r["task_id"] for r in doc["source"]["retracted"]] == ["alpha"]
    validate_document("campaign-plan", doc, "plan")
    with pytest.raises(ApplicationError, match="every task is retracted") as e:
        acts.plan_campaign(PlanCampaignInput(CampaignInput(
            "c2", publications=[f"{keys.publications}/alpha/alpha-r1"]), NOW))
    assert e.value.type == "InvalidCampaign" and not objects.exists("campaigns/c2/evaluation-plan.json")


def test_a_campaign_over_the_candidates_leaves_a_retracted_task_out_too(tmp_path):
    """Bands are measured on the candidates before the freeze: a retracted task is no candidate."""

    objects, store = FilesystemObjects(tmp_path / "var"), FilesystemStore(tmp_path / "store")
    spec = {"namespace": "cc", "revision": "r1", "seeds": ["seeds/table-model"], "splits": {"test": 1},
            "max_per_source": 1}
    write_candidate_revision(objects, store, spec, ["alpha", "beta"])
    keys = RevisionKeys("cc", "r1")
    sha = next(link.publication_sha256 for link in read_chain(objects, keys) if link.task_id == "alpha")
    _write_retraction(objects, keys, "alpha", sha, "license withdrawn")
    plan = CampaignActivities(store, objects, PROJECT_ROOT).plan_campaign(PlanCampaignInput(CampaignInput(
        "c3", mode="pilot", dataset=DatasetRef("cc", "r1"), bootstrap_samples=200), NOW))
    assert [t.frozen.task_id for t in plan.tasks] == ["beta"]
    assert plan.retracted == ["alpha (license withdrawn, by ana)"]
    doc = json.loads(objects.get("campaigns/c3/evaluation-plan.json"))
    assert doc["source"]["dataset"]["target"] == "candidates"
    assert [r["task_id"] for r in doc["source"]["retracted"]] == ["alpha"]


def _write_retraction(objects, keys: RevisionKeys, task_id: str, sha: str, reason: str) -> None:
    """A retraction as `retract` writes it, into the campaign and site stand-in revisions (they
    hold no chain for `retract` to read): those readers read only the retraction."""
    objects.put_if_absent(keys.retraction(1), retraction_bytes(build_document("retraction", {
        "sequence": 1, "namespace": keys.namespace, "revision": keys.revision, "task_id": task_id,
        "publication_id": f"{task_id}-r1", "publication_sha256": sha, "reason": reason, "by": "ana",
        "at": NOW, "previous_retraction_sha256": None}, "retraction")))


def test_the_review_site_marks_the_task_page_and_lists_retractions(tmp_path):
    source = Source(FilesystemObjects(tmp_path / "var"), FilesystemStore(tmp_path / "store"))
    pubs = frozen_revision(source, tmp_path)
    _write_retraction(source.objects, RevisionKeys("rv", "r1"), "mug-material", pubs["mug-material"][1],
                      "wrong material")
    build_site(source, tmp_path / "site", dataset=("rv", "r1"))
    index = (tmp_path / "site" / "index.html").read_text()
    assert 'id="retractions"' in index and "wrong material" in index
    assert 'id="retracted"' in (tmp_path / "site" / "tasks" / "mug-material.html").read_text()
    assert 'id="retracted"' not in (tmp_path / "site" / "tasks" / "table-model.html").read_text()


@pytest.fixture
def var(rev, monkeypatch):
    monkeypatch.setenv("ARKEVO_VAR", str(rev.objects.root))
    monkeypatch.setenv("ARKEVO_STORE", str(rev.tmp / "store"))
    monkeypatch.delenv("ARKEVO_OBJECTS", raising=False)
    return rev


def test_cli_retract_exit_codes_and_output(var, capsys):
    assert main(["dataset", "retract", "demo/r1", "gamma", "--reason", "wrong material", "--by", "ana"]) == 0
    assert "retracted: gamma (wrong material, by ana)" in capsys.readouterr().out
    before = _listing(var)
    assert main(["dataset", "retract", "demo/r1", "gamma", "--reason", "again", "--by", "bo"]) == 0
    assert "already retracted: gamma (wrong material, by ana)" in capsys.readouterr().out
    assert main(["dataset", "retract", "demo/r1", "nope", "--reason", "x", "--by", "bo"]) == 2
    assert "UnknownTask" in capsys.readouterr().err
    assert main(["dataset", "retract", "demo", "gamma", "--reason", "x", "--by", "bo"]) == 2
    assert main(["dataset", "retract", "demo/r9", "gamma", "--reason", "x", "--by", "bo"]) == 2
    assert _listing(var) == before
    assert main(["dataset", "freeze-check", "--namespace", "demo", "--revision", "r1"]) == 1
    assert "retracted: gamma (wrong material, by ana)" in capsys.readouterr().out


def test_a_retraction_race_chains_behind_the_winner(rev, monkeypatch):
    """Two retractions racing for sequence 1: the loser re-reads and takes sequence 2."""
    real = rev.objects.put_if_absent
    raced = []

    def put(key, data):
        if key == KEYS.retraction(1) and not raced:
            raced.append(key)  # the other retraction lands first
            assert real(key, _other(rev))
        return real(key, data)

    monkeypatch.setattr(rev.objects, "put_if_absent", put)
    result = retract(rev.objects, KEYS, "alpha", "mine", "bo", LATER)
    assert result.retraction["sequence"] == 2
    assert verify_revision(rev.objects, KEYS).ok


def _other(rev: Revision) -> bytes:
    from dataset_revisions.retraction import retraction_bytes

    link = next(link for link in rev_links(rev) if link.task_id == "delta")
    return retraction_bytes({"sequence": 1, "namespace": "demo", "revision": "r1", "task_id": "delta",
                             "publication_id": link.publication_id,
                             "publication_sha256": link.publication_sha256, "reason": "theirs",
                             "by": "ana", "at": NOW, "previous_retraction_sha256": None})
