"""Lineage-safe splits (issue 25, point 2), on the real store and real files, no Blender: a
seed's lineage and its defaults, the selection keyed on the lineage family (the demo's choice
unchanged), split pins, the cross-split lineage pair rules (inside the selection and against
another frozen revision), the lineage in the chain link, task.toml and split manifest, what a
derivation reads of a published source, and the derivation's refusal of a held-out source."""

from __future__ import annotations

import dataclasses
import json
import tomllib
from pathlib import Path

import pytest
from temporalio.exceptions import ApplicationError

from activities.derivation import DerivationActivities
from activities.packaging import PackagingActivities
from contracts import lineage
from contracts.errors import DERIVATION_SPLIT_MISMATCH, HELD_OUT_DERIVATION_SOURCE
from contracts.payloads.authoring import TaskIdentity
from contracts.payloads.common import DatasetRef
from contracts.payloads.derivation import SourcePlacement, SourceTask
from contracts.payloads.packaging import PublishInput
from contracts.payloads.review import FrozenTask
from contracts.validation import ContractError, build_document, validate_document
from dataset_revisions import freeze_rules
from dataset_revisions.chain import read_chain
from dataset_revisions.freeze import freeze, freeze_check, frozen_elsewhere
from dataset_revisions.layout import RevisionKeys
from dataset_revisions.selection import Candidate, select
from storage.content import FilesystemStore
from storage.objects import FilesystemObjects
from tests.unit.test_dataset_revisions import open_revision
from tests.unit.test_rerun_consistency import draft_package, evaluation, publish_reviewed
from tests.unit.test_rerun_consistency import freeze as freeze_task
from workflows.derivation import split_pin

ROOT = Path(__file__).resolve().parents[2]
NOW = "2026-12-02T10:00:00+00:00"
SEED = json.loads((ROOT / "seeds" / "table-model" / "seed.json").read_text())


# --- the lineage of a seed -------------------------------------------------------------------


def test_a_seed_without_a_lineage_is_its_own_root_and_keeps_its_bytes():
    manifest = validate_document("seed", SEED, "seed.json")
    assert "lineage" not in manifest.model_dump(mode="json")["provenance"]  # old seeds: same hash
    assert lineage.resolve("table-model", SEED["provenance"]) == {
        "root_seed": "table-model", "family": "arkevo-examples/workshop", "derived_from": []}


def test_a_derived_seed_declares_its_sources_lineage_and_pin():
    parent_lineage = lineage.resolve("table-model", SEED["provenance"])
    first = lineage.derive(parent_lineage, {"task_id": "table-model", "task_version": "v1-a",
                                            "namespace": "demo", "revision": "r1", "split": "train",
                                            "publication_sha256": "a" * 64}, "train")
    second = lineage.derive(first, {"task_id": "writing-desk", "task_version": None}, None)
    assert (second["root_seed"], second["family"], second["split"]) == (
        "table-model", "arkevo-examples/workshop", "train")  # root, family and pin carried on
    assert [p["task_id"] for p in second["derived_from"]] == ["table-model", "writing-desk"]
    assert "task_version" not in second["derived_from"][1]  # unknown: left out, never null
    seed = {**SEED, "seed_id": "desk-of-desk", "provenance": {**SEED["provenance"], "lineage": second}}
    assert build_document("seed", seed, "seed.json")["provenance"]["lineage"] == second
    assert lineage.resolve("desk-of-desk", seed["provenance"]) == second
    bad = {**seed, "provenance": {**seed["provenance"], "lineage": {**second, "split": "Test Split"}}}
    with pytest.raises(ContractError) as raised:
        validate_document("seed", bad, "desk-of-desk/seed.json")
    assert raised.value.field == "provenance.lineage.split"


# --- the selection and the rules on the family -----------------------------------------------


def cand(task_id: str, source: str, family: str = "", split: str = "", root: str = "",
         group: str = "MOD", profession: str = "PRF-3DART") -> Candidate:
    return Candidate(task_id, "v1", f"{task_id}-r1", "0" * 64, source, group, profession,
                     lineage_root=root, lineage_family=family, lineage_split=split)


def spec(**over):
    doc = {"namespace": "lin", "revision": "r2", "seeds": ["seeds/table-model"],
           "splits": {"train": 2, "test": 1}, "max_per_source": 2, "selection_seed": 7}
    return validate_document("dataset-spec", {**doc, **over}, "spec")


def test_the_demo_selection_is_unchanged_when_every_seed_is_its_own_root():
    demo = json.loads((ROOT / "datasets" / "demo.json").read_text())
    seeds = [json.loads(p.read_text()) for p in sorted((ROOT / "seeds").glob("*/seed.json"))]
    pool = [cand(s["seed_id"], s["provenance"]["source"], s["provenance"]["source"], root=s["seed_id"],
                 group=s["workflow_primary"].split("-")[0], profession=s["profession_primary"]) for s in seeds]
    chosen = select(pool, demo["splits"], demo["max_per_source"], demo["selection_seed"])
    # the selection `source` made before lineage (dataset_revisions/selection.py at ca53e6e)
    assert {k: [c.task_id for c in v] for k, v in chosen.items()} == {
        "test": ["crate-texture", "product-lighting"],
        "train": ["asset-hygiene", "mug-material", "robot-carry", "table-model"],
        "validation": ["fence-array", "render-setup"]}
    legacy = [dataclasses.replace(c, lineage_root="", lineage_family="") for c in pool]
    assert select(legacy, demo["splits"], demo["max_per_source"], demo["selection_seed"]) == {
        k: [dataclasses.replace(c, lineage_root="", lineage_family="") for c in v] for k, v in chosen.items()}


def test_a_derived_task_goes_with_its_family_not_its_new_source():
    pool = [cand("oak", "src-a", "src-a"), cand("oak-desk", "derived from oak", "src-a"),
            cand("pine", "src-b", "src-b"), cand("ash", "src-c", "src-c")]
    for seed in range(8):
        chosen = select(pool, {"train": 2, "test": 2}, 2, seed)
        where = {c.task_id: split for split, tasks in chosen.items() for c in tasks}
        assert where["oak"] == where["oak-desk"], (seed, where)
    sel = {"train": [pool[0], pool[1], cand("elm", "derived from oak-desk", "src-a")]}
    assert [g.message for g in freeze_rules.max_per_source(sel, spec())] == [
        "source 'src-a' has 3 tasks, at most 2 allowed"]
    assert freeze_rules.source_coverage(sel, spec(coverage={"min_sources": 2}))[0].message == \
        "the splits draw on 1 sources, need 2"


def test_a_pinned_family_goes_only_to_its_split():
    pool = [cand("oak", "src-a", "src-a", split="test"), cand("oak-2", "src-a", "src-a"),
            cand("pine", "src-b", "src-b"), cand("ash", "src-c", "src-c"), cand("elm", "src-d", "src-d")]
    for seed in range(8):
        chosen = select(pool, {"train": 2, "test": 2}, 2, seed)
        assert [c.task_id for c in chosen["test"]] == ["oak", "oak-2"], seed
    # pinned to a full split: left out, never placed elsewhere
    chosen = select(pool, {"train": 4, "test": 0}, 2, 1)
    assert "oak" not in {c.task_id for c in chosen["train"]}
    assert freeze_rules.pin_gaps(pool, spec()) == []
    clash = pool + [cand("oak-3", "src-a", "src-a", split="train"), cand("fir", "src-e", "src-e", split="holdout")]
    assert [g.message for g in freeze_rules.pin_gaps(clash, spec())] == [
        "lineage family 'src-a' is pinned to splits test, train (oak, oak-3)",
        "lineage family 'src-e' is pinned to split holdout, which the spec has not (fir)"]
    assert {c.task_id for tasks in select(clash, {"train": 3, "test": 2}, 2, 1).values()
            for c in tasks}.isdisjoint({"oak", "oak-2", "oak-3", "fir"})
    # a custom selector that ignores the pin
    assert [g.message for g in freeze_rules.lineage_pins({"train": [pool[0]]}, spec())] == [
        "task oak is in split train, but its lineage (family 'src-a') is pinned to split test"]


def test_every_cross_split_pair_of_a_selection_is_named():
    sel = {"train": [cand("oak", "src-a", "src-a", root="oak"), cand("oak-desk", "d", "src-a", root="oak")],
           "test": [cand("oak-shelf", "d2", "src-a", root="oak"), cand("pine", "src-b", "src-b")]}
    assert [g.message for g in freeze_rules.lineage_pairs(sel, spec())] == [
        "task oak-shelf (test) and task oak (train) share lineage family 'src-a' (root 'oak')",
        "task oak-shelf (test) and task oak-desk (train) share lineage family 'src-a' (root 'oak')"]
    assert [g.message for g in freeze_rules.sources_isolated(sel, spec())] == [
        "source 'src-a' is shared by splits test, train"]
    assert freeze_rules.lineage_pairs({"train": sel["train"], "test": sel["test"][1:]}, spec()) == []


# --- a real revision: chain link, task.toml, manifest, and another frozen revision -----------


@dataclasses.dataclass
class Namespace:
    objects: FilesystemObjects
    store: FilesystemStore
    frozen: FrozenTask
    tmp: Path

    def publish(self, revision: str, task_id: str, source: str, declared: dict | None = None,
                workflow: str = "MOD-01", profession: str = "PRF-3DART"):
        return self.publish_into("lin", revision, task_id, source, declared, workflow, profession)

    def publish_into(self, namespace: str, revision: str, task_id: str, source: str,
                     declared: dict | None = None, workflow: str = "MOD-01", profession: str = "PRF-3DART"):
        """A task published into <namespace>/<revision> with an admission record as admission
        writes it."""
        provenance = {"source": source, "license": "CC0-1.0", "collected_by": "test"}
        if declared:
            provenance["lineage"] = declared
        record = self.store.put_json({"seed_id": task_id, "provenance": provenance,
                                      "lineage": lineage.resolve(task_id, provenance)})
        identity = TaskIdentity(task_id, self.frozen.task_version, "vv2-00000000000000aa", "", workflow, profession)
        frozen = dataclasses.replace(self.frozen, task_id=task_id, identity=identity)
        return publish_reviewed(PackagingActivities(self.store, self.objects), PublishInput(
            task_id, frozen, evaluation(self.store, "run-1"), record, NOW, None, DatasetRef(namespace, revision)))


R1 = {"namespace": "lin", "revision": "r1", "seeds": ["seeds/table-model"],
      "splits": {"train": 1, "test": 1}, "max_per_source": 2, "selection_seed": 1}


@pytest.fixture
def ns(tmp_path) -> Namespace:
    store = FilesystemStore(tmp_path / "store")
    objects = FilesystemObjects(tmp_path / "var")
    frozen = freeze_task(store, tmp_path, draft_package(store, tmp_path), "c", NOW)
    made = Namespace(objects, store, frozen, tmp_path)
    open_revision(objects, R1)
    made.publish("r1", "oak", "src-a")
    made.publish("r1", "pine", "src-b", workflow="MAT-01", profession="PRF-LOOKDEV")
    freeze(objects, RevisionKeys("lin", "r1"), NOW)
    return made


def split_of(objects, keys: RevisionKeys) -> dict[str, str]:
    manifest = json.loads(objects.get(keys.manifest))
    return {e["task_id"]: split for split, entries in manifest["splits"].items() for e in entries}


def test_the_lineage_reaches_the_chain_link_task_toml_and_manifest(ns):
    keys = RevisionKeys("lin", "r1")
    links = {link.task_id: link for link in read_chain(ns.objects, keys)}
    assert (links["oak"].lineage_root, links["oak"].lineage_family, links["oak"].lineage_split) == ("oak", "src-a", "")
    toml = tomllib.loads((Path(ns.objects.location(links["oak"].publication_key)) / "task" / "task.toml").read_text())
    assert (toml["metadata"]["lineage_root"], toml["metadata"]["lineage_family"]) == ("oak", "src-a")
    assert "lineage_split" not in toml["metadata"]
    manifest = validate_document("split-manifest", json.loads(ns.objects.get(keys.manifest)), "manifest")
    assert {(e.task_id, e.lineage_root, e.lineage_family) for es in manifest.splits.values() for e in es} == {
        ("oak", "oak", "src-a"), ("pine", "pine", "src-b")}


def test_freeze_check_names_a_pair_across_frozen_revisions(ns):
    held = next(t for t, split in split_of(ns.objects, RevisionKeys("lin", "r1")).items() if split == "test")
    held_family = {"oak": "src-a", "pine": "src-b"}[held]
    r2 = RevisionKeys("lin", "r2")
    open_revision(ns.objects, {**R1, "revision": "r2", "splits": {"train": 1}})
    # a new seed from the same source as r1's test task: its family is in r1's test
    ns.publish("r2", "birch", held_family)
    report = freeze_check(ns.objects, r2)
    assert not report.freeze_ready
    assert [g.message for g in report.gaps if g.rule == "lineage_across_revisions"] == [
        f"task birch (train) and task {held} (test of lin/r1) share lineage family {held_family!r} "
        f"(roots 'birch', {held!r})"]
    [pair] = report.lineage_pairs
    assert (pair["a"]["task_id"], pair["a"]["split"], pair["b"]["task_id"], pair["b"]["split"],
            pair["b"]["revision"]) == ("birch", "train", held, "test", "r1")
    assert report.splits["train"].families == [held_family]
    # another namespace's frozen revision is not this one's concern
    open_revision(ns.objects, {**R1, "namespace": "other", "splits": {"train": 1}})
    ns.publish_into("other", "r1", "maple", held_family)
    freeze(ns.objects, RevisionKeys("other", "r1"), NOW)
    assert {(p.task_id, p.revision) for p in frozen_elsewhere(ns.objects, r2)} == {("oak", "r1"), ("pine", "r1")}


def test_a_derived_task_pinned_to_its_sources_split_freezes_beside_it(ns):
    train = next(t for t, split in split_of(ns.objects, RevisionKeys("lin", "r1")).items() if split == "train")
    family = {"oak": "src-a", "pine": "src-b"}[train]
    open_revision(ns.objects, {**R1, "revision": "r2", "splits": {"train": 1, "test": 1}})
    declared = lineage.derive(lineage.resolve(train, {"source": family}),
                              {"task_id": train, "namespace": "lin", "revision": "r1", "split": "train"}, "train")
    ns.publish("r2", "desk", f"derived from {train} by arkevo TaskDerivation", declared)
    ns.publish("r2", "fir", "src-z")
    link = next(link for link in read_chain(ns.objects, RevisionKeys("lin", "r2")) if link.task_id == "desk")
    assert (link.lineage_root, link.lineage_family, link.lineage_split) == (train, family, "train")
    report = freeze_check(ns.objects, RevisionKeys("lin", "r2"))
    assert report.freeze_ready, report.gaps
    assert report.splits["train"].tasks == ["desk"] and report.splits["test"].tasks == ["fir"]
    result = freeze(ns.objects, RevisionKeys("lin", "r2"), NOW)
    entry = json.loads(Path(result.manifest).read_text())["splits"]["train"][0]
    assert (entry["source"], entry["lineage_root"], entry["lineage_family"], entry["lineage_split"]) == (
        f"derived from {train} by arkevo TaskDerivation", train, family, "train")


# --- what a derivation reads of a source, and when it refuses --------------------------------


def test_a_derivation_source_in_a_frozen_revision_knows_its_lineage_and_split(ns):
    acts = DerivationActivities(ns.store, ns.tmp, objects=ns.objects)
    splits = split_of(ns.objects, RevisionKeys("lin", "r1"))
    for link in read_chain(ns.objects, RevisionKeys("lin", "r1")):
        folder = Path(ns.objects.location(link.publication_key))
        source = acts.read_source_task(str(folder / "task"))
        assert (source.lineage_root, source.lineage_family) == (link.lineage_root, link.lineage_family)
        assert source.placements == [SourcePlacement("lin", "r1", splits[link.task_id], link.publication_sha256)]
        summary = ns.store.get_json(source.summary)
        assert summary["parent"] == {"task_id": link.task_id, "task_version": link.task_version,
                                     "publication_sha256": link.publication_sha256, "namespace": "lin",
                                     "revision": "r1", "split": splits[link.task_id]}
    # without the object store (or a foreign task): no placements, nothing to refuse
    assert DerivationActivities(ns.store, ns.tmp).read_source_task(str(folder / "task")).placements == []


def source_in(*splits: str) -> SourceTask:
    return SourceTask("var/pub/oak/task", "oak", None,  # type: ignore[arg-type]
                      "oak", "src-a", [SourcePlacement("lin", f"r{n}", s, "0" * 64) for n, s in enumerate(splits, 1)])


def test_the_derivation_refuses_a_held_out_source_unless_it_joins_that_split():
    with pytest.raises(ApplicationError) as raised:
        split_pin(source_in("test"), None)
    assert raised.value.type == HELD_OUT_DERIVATION_SOURCE and raised.value.non_retryable
    assert "var/pub/oak/task (oak) is a task of the held-out split test of lin/r1" in raised.value.message
    assert "set joins_split to 'test'" in raised.value.message
    assert split_pin(source_in("test"), "test") == "test"
    assert split_pin(source_in("validation"), "validation") == "validation"
    assert split_pin(source_in("train"), None) == "train"  # derived tasks stay beside their source
    assert split_pin(source_in(), None) is None and split_pin(source_in(), "test") == "test"
    # a source whose own lineage is pinned to a held-out split (published, not yet frozen)
    pinned = dataclasses.replace(source_in(), lineage_split="test")
    with pytest.raises(ApplicationError) as raised:
        split_pin(pinned, None)
    assert raised.value.type == HELD_OUT_DERIVATION_SOURCE and "test (its lineage's pin)" in raised.value.message
    assert split_pin(pinned, "test") == "test"
    for source, joins in ((source_in("train"), "test"), (source_in("test"), "validation"),
                          (source_in("train", "test"), "test"), (pinned, "train")):
        with pytest.raises(ApplicationError) as raised:
            split_pin(source, joins)
        assert raised.value.type == DERIVATION_SPLIT_MISMATCH and raised.value.non_retryable, (source, joins)
