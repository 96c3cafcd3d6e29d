"""Dataset revisions on the real store and real files, no Blender (issue 9, points 1, 3, 4):
publications joining a revision's hash chain through the real `publish_task`, freeze-check and
its rules (each with a failing case), freeze, and `verify` naming a changed or missing file."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from temporalio.exceptions import ApplicationError

from activities.datasets import DatasetActivities
from activities.packaging import PackagingActivities
from storage.content import FilesystemStore
from contracts.payloads.authoring import TaskIdentity
from contracts.payloads.common import DatasetRef
from contracts.payloads.datasets import OpenRevisionInput
from contracts.payloads.packaging import PublishInput
from dataset_revisions import freeze_rules
from dataset_revisions.freeze import FreezeNotReady, freeze, freeze_check
from dataset_revisions.chain import read_chain
from dataset_revisions.layout import RevisionKeys
from dataset_revisions.revision import candidates
from dataset_revisions.selection import Candidate, select
from dataset_revisions.verify import verify_revision
from storage.objects import FilesystemObjects
from publications.reader import PublicationError, read_publication
from tests.unit.test_rerun_consistency import draft_package, evaluation, publish_reviewed
from tests.unit.test_rerun_consistency import freeze as freeze_task

ROOT = Path(__file__).resolve().parents[2]
NOW = "2026-11-30T10:00:00+00:00"
KEYS = RevisionKeys("demo", "r1")
SPEC = {"namespace": "demo", "revision": "r1", "seeds": ["seeds/table-model"],
        "splits": {"train": 2, "validation": 1, "test": 1}, "max_per_source": 2,
        "coverage": {"min_groups_per_split": 1, "min_professions_per_split": 1, "min_sources": 3},
        "selection_seed": 3}
# task id -> (source, workflow, profession): three sources, the first with two tasks
TASKS = {"alpha": ("src-a", "MOD-01", "PRF-3DART"), "beta": ("src-a", "MAT-01", "PRF-LOOKDEV"),
         "gamma": ("src-b", "ANI-07", "PRF-ANIM"), "delta": ("src-c", "SCN-03", "PRF-ENV")}


@dataclasses.dataclass
class Revision:
    objects: FilesystemObjects
    store: FilesystemStore
    frozen: object  # a frozen stand-in task (table-model's draft files)
    tmp: Path

    def publish(self, task_id: str, run: str = "run-1", keys: RevisionKeys = KEYS):
        source, workflow, profession = TASKS[task_id]
        identity = TaskIdentity(task_id, "v1-x", "vv2-00000000000000aa", "", workflow, profession)
        frozen = dataclasses.replace(self.frozen, task_id=task_id, identity=identity)
        record = self.store.put_json({"provenance": {"source": source}})
        return publish_reviewed(PackagingActivities(self.store, self.objects), PublishInput(
            task_id, frozen, evaluation(self.store, run), record, NOW, None,
            DatasetRef(keys.namespace, keys.revision)))


def open_revision(objects: FilesystemObjects, spec: dict):
    return DatasetActivities(objects, ROOT).open_dataset_revision(OpenRevisionInput(spec, None, NOW))


@pytest.fixture
def rev(tmp_path) -> Revision:
    return open_demo_revision(tmp_path)


def open_demo_revision(tmp_path) -> Revision:
    """Revision demo/r1 opened in a fresh store, and a frozen stand-in task to publish."""
    store = FilesystemStore(tmp_path / "store")
    objects = FilesystemObjects(tmp_path / "var")
    open_revision(objects, SPEC)
    frozen = freeze_task(store, tmp_path, draft_package(store, tmp_path), "c", NOW)
    return Revision(objects, store, frozen, tmp_path)


def test_publications_in_a_revision_form_a_hash_chain(rev):
    results = [rev.publish(t) for t in TASKS]
    assert [r.dataset_sequence for r in results] == [1, 2, 3, 4]
    docs = [json.loads((Path(r.path) / "publication.json").read_text()) for r in results]
    assert all(doc["dataset"] == {"namespace": "demo", "revision": "r1"} for doc in docs)
    links = read_chain(rev.objects, KEYS)
    assert [link.publication_sha256 for link in links] == [r.publication_json.sha256 for r in results]
    assert links[0].previous_link_sha256 is None
    for n, link in enumerate(links[1:], start=1):  # each link names the bytes of the one before
        assert link.previous_link_sha256 == hashlib.sha256(rev.objects.get(KEYS.link(n))).hexdigest()
    for r, link in zip(results, links):  # records.json: the run's records, pinned by the link
        records = (Path(r.path) / "records.json").read_bytes()
        assert hashlib.sha256(records).hexdigest() == link.records_sha256
        assert json.loads(records)["published_at"] == link.published_at == NOW
        assert {f["path"].split("/")[0] for f in json.loads(records)["files"]} >= {"evaluation", "review"}
    assert all(Path(r.path).is_relative_to(rev.tmp / "var" / "datasets" / "demo" / "r1") for r in results)
    # a retry of the same publication (same content) is the same link, not a new one
    again = rev.publish("alpha")
    assert (again.publication_id, again.dataset_sequence) == (results[0].publication_id, 1)
    assert len(rev.objects.list(KEYS.chain)) == 4
    assert verify_revision(rev.objects, KEYS).ok


def test_concurrent_publishers_never_share_a_link(rev):
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(rev.publish, TASKS))
    assert sorted(r.dataset_sequence for r in results) == [1, 2, 3, 4]
    report = verify_revision(rev.objects, KEYS)
    assert report.ok, report.problems
    assert report.publications == 4


def test_a_crash_between_the_link_and_publication_json_is_finished_by_the_retry(rev):
    first = rev.publish("alpha")
    pj = Path(first.path) / "publication.json"
    pj.unlink()  # the activity died after claiming its link
    assert not verify_revision(rev.objects, KEYS).ok
    retried = rev.publish("alpha")
    assert retried.publication_id == first.publication_id and pj.is_file()
    assert verify_revision(rev.objects, KEYS).ok


def test_freeze_check_reports_ready_and_writes_nothing(rev):
    for t in TASKS:
        rev.publish(t)
    before = rev.objects.list("")
    report = freeze_check(rev.objects, KEYS)
    assert report.freeze_ready, report.gaps
    assert {n: s.count for n, s in report.splits.items()} == {"train": 2, "validation": 1, "test": 1}
    assert report.splits["train"].sources == ["src-a"]  # the two-task source fills train
    assert rev.objects.list("") == before
    assert freeze_check(rev.objects, KEYS).semantic_digest == report.semantic_digest


def test_freeze_writes_the_manifest_once_and_the_revision_stays_frozen(rev):
    for t in TASKS:
        rev.publish(t)
    result = freeze(rev.objects, KEYS, NOW)
    manifest = json.loads(Path(result.manifest).read_text())
    assert manifest["semantic_digest"] == result.semantic_digest
    assert {s: [e["task_id"] for e in es] for s, es in manifest["splits"].items()} == {
        s: summary.tasks for s, summary in result.report.splits.items()}
    assert sorted(e["task_id"] for es in manifest["splits"].values() for e in es) == sorted(TASKS)
    event = json.loads(Path(result.handoff_event).read_text())
    assert event["kind"] == "freeze" and event["manifest"]["sha256"] == result.manifest_sha256
    again = freeze(rev.objects, KEYS, "2026-12-01T00:00:00+00:00")
    assert again.already_frozen and again.manifest_sha256 == result.manifest_sha256
    with pytest.raises(ApplicationError, match="frozen") as e:
        rev.publish("alpha", run="run-2")
    assert e.value.non_retryable
    with pytest.raises(ApplicationError, match="is frozen"):
        open_revision(rev.objects, SPEC)
    assert verify_revision(rev.objects, KEYS).ok


def test_freeze_refuses_a_revision_with_gaps(rev):
    rev.publish("alpha")
    with pytest.raises(FreezeNotReady, match="split_minimums") as e:
        freeze(rev.objects, KEYS, NOW)
    assert {g.rule for g in e.value.gaps} >= {"split_minimums", "source_coverage"}
    assert not rev.objects.exists(KEYS.manifest)


def test_verify_names_a_changed_and_a_missing_file(rev):
    results = [rev.publish(t) for t in TASKS]
    target = Path(results[2].path) / "task" / "instruction.md"
    target.chmod(0o644)
    data = bytearray(target.read_bytes())
    data[0] ^= 1  # one byte
    target.write_bytes(bytes(data))
    (Path(results[1].path) / "evaluation" / "report.json").unlink()
    report = verify_revision(rev.objects, KEYS)
    assert not report.ok
    assert any(p.startswith("changed: ") and p.split()[1] == str(target) for p in report.problems)
    assert any(p.startswith("missing: ") and p.endswith("evaluation/report.json") for p in report.problems)
    assert len(report.problems) == 2, report.problems


def test_verify_names_a_rewritten_publication_json_and_the_broken_link(rev):
    results = [rev.publish(t) for t in TASKS]
    pj = Path(results[1].path) / "publication.json"
    doc = json.loads(pj.read_text())
    doc["revision"] = 7
    pj.chmod(0o644)
    pj.write_text(json.dumps(doc, indent=2) + "\n")
    problems = verify_revision(rev.objects, KEYS).problems
    assert any(p.startswith(f"changed: {pj}") for p in problems), problems


def test_a_rewritten_records_json_or_chain_link_is_named_by_verify_and_refused_by_readers(rev):
    results = [rev.publish(t) for t in TASKS]
    records = Path(results[0].path) / "records.json"
    doc = json.loads(records.read_text())
    doc["published_at"] = "2026-12-24T00:00:00+00:00"  # a record rewritten after the fact
    records.chmod(0o644)
    records.write_text(json.dumps(doc, indent=2) + "\n")
    link = Path(rev.objects.location(KEYS.link(2)))
    link.chmod(0o644)
    link.write_text(link.read_text().replace(NOW, "2026-12-25T00:00:00+00:00"))
    problems = verify_revision(rev.objects, KEYS).problems
    assert any(p.startswith(f"changed: {records}") and "chain link 1 records" in p for p in problems), problems
    assert any(p.startswith("chain: link 3 ") for p in problems), problems  # names link 2's old bytes
    [chained] = [c for c in read_chain(rev.objects, KEYS) if c.sequence == 1]
    with pytest.raises(PublicationError, match=r"records.json: sha256 .* its chain link records"):
        read_publication(rev.objects, chained.publication_key, records_sha256=chained.records_sha256)


def test_a_revision_spec_never_changes_and_bad_specs_write_nothing(tmp_path):
    objects = FilesystemObjects(tmp_path / "var")
    with pytest.raises(ApplicationError, match=r"splits\.train: 0 is less than the minimum of 1") as e:
        open_revision(objects, {**SPEC, "splits": {"train": 0}})
    assert e.value.type == "InvalidDatasetSpec" and e.value.non_retryable
    with pytest.raises(ApplicationError, match=r"seeds\[1\]: seeds/nope has no seed.json"):
        open_revision(objects, {**SPEC, "seeds": ["seeds/table-model", "seeds/nope"]})
    assert objects.list("") == []
    plan = open_revision(objects, SPEC)
    assert [s.seed_id for s in plan.seeds] == ["table-model"] and plan.published == {}
    with pytest.raises(ApplicationError, match="exists with another spec") as e:
        open_revision(objects, {**SPEC, "max_per_source": 3})
    assert e.value.type == "DatasetSpecConflict"
    folder = open_revision(FilesystemObjects(tmp_path / "other"), {**SPEC, "seeds": {"folder": "seeds"}})
    assert {"table-model", "robot-carry"} <= {s.seed_id for s in folder.seeds}


# --- each freeze rule has a failing case -----------------------------------------------------


def cand(task_id: str, source: str, group: str = "MOD", profession: str = "PRF-3DART") -> Candidate:
    return Candidate(task_id, "v1", f"{task_id}-r1", "0" * 64, source, group, profession)


def spec(**over):
    from contracts.validation import validate_document

    return validate_document("dataset-spec", {**SPEC, **over}, "spec")


def test_split_minimums_rule():
    gaps = freeze_rules.split_minimums({"train": [cand("a", "s")], "validation": [], "test": []}, spec())
    assert [g.message for g in gaps] == ["split train holds 1 tasks, needs 2",
                                         "split validation holds 0 tasks, needs 1",
                                         "split test holds 0 tasks, needs 1"]


def test_max_per_source_rule():
    sel = {"train": [cand("a", "s"), cand("b", "s"), cand("c", "s")]}
    assert [g.message for g in freeze_rules.max_per_source(sel, spec())] == [
        "source 's' has 3 tasks, at most 2 allowed"]
    assert freeze_rules.max_per_source({"train": [cand("a", "s")]}, spec()) == []


def test_sources_isolated_rule():
    sel = {"train": [cand("a", "s")], "test": [cand("b", "s")]}
    assert [g.message for g in freeze_rules.sources_isolated(sel, spec())] == [
        "source 's' is shared by splits test, train"]


def test_coverage_rules():
    sel = {"train": [cand("a", "s", "MOD", "PRF-3DART"), cand("b", "s", "MOD", "PRF-3DART")]}
    strict = spec(coverage={"min_groups_per_split": 2, "min_professions_per_split": 2, "min_sources": 2})
    assert [g.rule for g in freeze_rules.group_coverage(sel, strict)] == ["group_coverage"]
    assert [g.rule for g in freeze_rules.profession_coverage(sel, strict)] == ["profession_coverage"]
    messages = [g.message for g in freeze_rules.source_coverage(sel, strict)]
    assert "the splits draw on 1 sources, need 2" in messages
    assert "split validation draws on 0 sources, needs 1" in messages


def test_the_selection_is_deterministic_balanced_and_source_isolated():
    pool = [cand(f"t{i}", f"s{i % 5}") for i in range(20)]
    targets = {"train": 6, "validation": 2, "test": 2}
    one = select(pool, targets, 2, seed=11)
    assert one == select(list(reversed(pool)), targets, 2, seed=11)
    assert {k: len(v) for k, v in one.items()} == targets
    assert freeze_rules.sources_isolated(one, spec()) == []
    assert freeze_rules.max_per_source(one, spec()) == []
    others = [select(pool, targets, 2, seed=s) for s in range(12, 20)]
    assert any(o != one for o in others)  # the seed value matters


def test_a_nondeterministic_selector_fails_the_check(rev):
    for t in TASKS:
        rev.publish(t)
    calls = []

    def flaky(pool, targets, max_per_source, seed):
        """Swaps validation and test on every other call, as a selection keyed on the clock or
        on listing order might."""
        calls.append(1)
        chosen = select(pool, targets, max_per_source, seed)
        if len(calls) % 2 == 0:
            chosen["validation"], chosen["test"] = chosen["test"], chosen["validation"]
        return chosen

    report = freeze_check(rev.objects, KEYS, selector=flaky)
    assert not report.freeze_ready
    assert [g.rule for g in report.gaps] == ["selection_deterministic"]


def test_candidates_skip_uncommitted_links(rev):
    first = rev.publish("alpha")
    rev.publish("gamma")
    (Path(first.path) / "publication.json").unlink()
    assert [c.task_id for c in candidates(rev.objects, KEYS)] == ["gamma"]


# --- the same on S3 (moto's server on loopback) -------------------------------------------------


def test_a_revision_on_s3_chains_freezes_and_verifies(tmp_path, s3_client, s3_bucket):
    from storage.content import ContentStore
    from storage.s3 import S3Objects

    store = ContentStore(S3Objects(s3_bucket, "store", s3_client))
    objects = S3Objects(s3_bucket, "var", s3_client)
    open_revision(objects, SPEC)
    frozen = freeze_task(store, tmp_path, draft_package(store, tmp_path), "c", NOW)
    rev = Revision(objects, store, frozen, tmp_path)
    results = [rev.publish(t) for t in TASKS]
    assert results[0].path == f"s3://{s3_bucket}/var/datasets/demo/r1/publications/alpha/alpha-r1"
    assert [r.dataset_sequence for r in results] == [1, 2, 3, 4]
    event = json.loads(objects.get(results[3].handoff_event.split(f"{s3_bucket}/var/", 1)[1]))
    assert event["publication"]["sha256"] == results[3].publication_json.sha256
    frozen_rev = freeze(objects, KEYS, NOW)
    assert frozen_rev.manifest == f"s3://{s3_bucket}/var/{KEYS.manifest}"
    assert verify_revision(objects, KEYS).ok
    # immutability is the server's: a second conditional write of the manifest is refused
    assert not objects.put_if_absent(KEYS.manifest, b"{}")
    key = "var/datasets/demo/r1/publications/gamma/gamma-r1/task/instruction.md"
    body = s3_client.get_object(Bucket=s3_bucket, Key=key)["Body"].read()
    s3_client.put_object(Bucket=s3_bucket, Key=key, Body=body + b" ")  # tampered out of band
    problems = verify_revision(objects, KEYS).problems
    assert [p.split(" (")[0] for p in problems] == [f"changed: s3://{s3_bucket}/{key}"]


def test_freeze_runs_the_export_checkpoint_over_the_dataset_export(rev):
    results = {t: rev.publish(t) for t in TASKS}
    assert freeze_check(rev.objects, KEYS, store=rev.store).freeze_ready  # reviewed pending files
    target = Path(results["gamma"].path) / "task" / "instruction.md"
    target.chmod(0o644)
    key = "AKIA" + "QX7LMN2PRS4TUV6W"  # assembled here so this file holds no key
    target.write_text(target.read_text() + f"\nupload with {key}\n")
    report = freeze_check(rev.objects, KEYS, store=rev.store)
    assert not report.freeze_ready
    privacy = [g.message for g in report.gaps if g.rule == "privacy"]
    lines = len(target.read_text().splitlines())
    assert privacy and all(m.startswith("gamma-r1: privacy finding in task/instruction.md:") for m in privacy)
    assert any(f"task/instruction.md:{lines}:" in m for m in privacy) and not any(key in m for m in privacy)
    assert [g.rule for g in report.gaps if g.rule == "integrity"] == ["integrity"]
    record = Path(results["beta"].path) / "evaluation" / "trials.jsonl"  # a run record, not the version
    record.chmod(0o644)
    record.write_text(record.read_text() + f"upload with {key}\n")
    report = freeze_check(rev.objects, KEYS, store=rev.store)
    assert any(g.message.startswith("beta-r1: privacy finding in evaluation/trials.jsonl:")
               for g in report.gaps if g.rule == "privacy"), report.gaps
    with pytest.raises(FreezeNotReady, match="privacy"):
        freeze(rev.objects, KEYS, NOW, store=rev.store)
    assert not rev.objects.exists(KEYS.manifest)


def test_workers_put_publications_and_revisions_on_s3_when_configured(monkeypatch, tmp_path, s3_server,
                                                                      s3_client, s3_bucket):
    from storage.s3 import S3Objects
    from workers.settings import settings_from_env

    for name, value in {"ARKEVO_OBJECTS": f"s3://{s3_bucket}/var", "ARKEVO_STORE": f"s3://{s3_bucket}/store",
                        "ARKEVO_S3_ENDPOINT_URL": s3_server, "AWS_ACCESS_KEY_ID": "testing",
                        "AWS_SECRET_ACCESS_KEY": "testing", "ARKEVO_VAR": str(tmp_path / "var")}.items():
        monkeypatch.setenv(name, value)
    settings = settings_from_env()
    objects, store = settings.objects(), settings.content_store()
    assert isinstance(objects, S3Objects) and isinstance(store.backend, S3Objects)
    plan = open_revision(objects, SPEC)
    assert plan.location == f"s3://{s3_bucket}/var/datasets/demo/r1"
    ref = store.put_bytes(b"blob")
    keys = [o["Key"] for o in s3_client.list_objects_v2(Bucket=s3_bucket)["Contents"]]
    assert sorted(keys) == ["store/" + ref.key, "var/datasets/demo/r1/dataset.json"]
    assert not (tmp_path / "var").exists()  # nothing went to the local disk


def test_a_freeze_check_scans_again_only_the_publications_whose_bytes_changed(rev, monkeypatch):
    """The export scan of a publication is kept by the sha256 of each of its files: a production
    that stops when ready asks freeze-check after every publication without scanning the earlier
    ones again, and a file changed in place is scanned again (and found)."""
    from dataset_revisions import export_check

    from contracts.digests import sha256_file
    from privacy.extract import cache_name, reader_version

    results = {t: rev.publish(t) for t in TASKS}
    scanned: list[str] = []
    real = export_check.scan_tree

    def counting(root, policy, **kw):
        report = real(root, policy, **kw)
        scanned.append(str(root))
        return report
    monkeypatch.setattr(export_check, "scan_tree", counting)
    monkeypatch.setattr(export_check, "_scanned", {})
    freeze_check(rev.objects, KEYS, store=rev.store)
    assert export_check._scanned == {}  # .blend texts not read yet: they may be, so nothing is kept
    for blend in Path(results["alpha"].path).rglob("*.blend"):  # read now: no texts (the same .blends in all)
        doc = {"texts": [], "strings": [], "reader": reader_version()}
        rev.store.set_name(cache_name(sha256_file(blend)), rev.store.put_json(doc))
    scanned.clear()
    first = freeze_check(rev.objects, KEYS, store=rev.store)
    kept = len(export_check._scanned)
    assert len(scanned) == kept == len(TASKS)
    scanned.clear()
    again = freeze_check(rev.objects, KEYS, store=rev.store)
    assert scanned == [] and again.gaps == first.gaps
    cached = "beta"
    target = Path(results[cached].path) / "task" / "instruction.md"
    target.chmod(0o644)
    key = "AKIA" + "QX7LMN2PRS4TUV6W"  # assembled here so this file holds no key
    target.write_text(target.read_text() + f"\nupload with {key}\n")
    scanned.clear()
    report = freeze_check(rev.objects, KEYS, store=rev.store)
    assert scanned == [str(Path(results[cached].path))]  # that one alone
    assert any(g.message.startswith(f"{cached}-r1: privacy finding in task/instruction.md:")
               for g in report.gaps if g.rule == "privacy"), report.gaps
