"""`freeze-check` and `freeze` of a dataset revision.

`freeze_check` writes nothing: it selects (selection.py), applies every rule (freeze_rules.py)
and — given the content store — the export checkpoint and `verify` (export_check.py), and
reports `freeze_ready` with every gap. `freeze` runs the same
check and, only when ready, writes the split manifest (create-only: a frozen revision is
immutable) and announces it with a freeze handoff event. The manifest is a function of the
selection alone; when it froze and the chain head it saw are the event's and the freeze
report's, so two runs of the same seeds and code freeze the same manifest bytes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from storage.content import ContentStore
from contracts.validation import build_document
from dataset_revisions.export_check import privacy_gaps
from dataset_revisions.bands import TaskBand, check_band_configs, read_difficulty, task_bands, verifier_version
from dataset_revisions.freeze_rules import (RULES, Gap, Placed, cross_revision_pairs, difficulty_bands, pin_gaps,
                                            selection_pairs)
from dataset_revisions.layout import RevisionKeys, handoff_key
from dataset_revisions.retraction import retracted
from dataset_revisions.revision import candidates_from, committed_links, frozen_entries, read_spec
from dataset_revisions.selection import Candidate, select, semantic_digest
from dataset_revisions.verify import verify_revision
from storage.objects import ObjectStore

Selector = Callable[[list[Candidate], dict[str, int], int, int], dict[str, list[Candidate]]]


class FreezeNotReady(Exception):
    """The revision does not meet its freeze rules; every gap is listed."""

    def __init__(self, keys: RevisionKeys, gaps: list[Gap]):
        self.gaps = gaps
        lines = "\n".join(f"  - {g.rule}: {g.message}" for g in gaps)
        super().__init__(f"dataset {keys.namespace} revision {keys.revision} is not ready to freeze:\n{lines}")


class FrozenRevisionImmutable(Exception):
    """The revision froze with another selection; changes need a new revision."""


@dataclass
class SplitSummary:
    target: int
    count: int
    tasks: list[str]
    sources: list[str]
    groups: list[str]
    professions: list[str]
    families: list[str] = field(default_factory=list)  # lineage families: the split key


@dataclass
class FreezeReport:
    namespace: str
    revision: str
    freeze_ready: bool
    selection_seed: int
    candidates: int
    splits: dict[str, SplitSummary]
    unused: list[str]
    gaps: list[Gap] = field(default_factory=list)
    semantic_digest: str = ""
    spec_sha256: str = ""
    # tasks left out of the candidates because they were retracted: {task_id, reason, by, at}
    retracted: list[dict] = field(default_factory=list)
    # every cross-split lineage pair: inside the selection and against the namespace's other
    # frozen revisions ({"family", "a": {...}, "b": {...}}); each is a gap too
    lineage_pairs: list[dict] = field(default_factory=list)
    bands: list[TaskBand] = field(default_factory=list)  # every candidate's difficulty band
    possibly_impossible: list[str] = field(default_factory=list)  # for review, never dropped

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class FreezeResult:
    report: FreezeReport
    manifest: str  # where the split manifest lies
    manifest_sha256: str
    semantic_digest: str
    handoff_event: str
    already_frozen: bool


def _check(objects: ObjectStore, keys: RevisionKeys, selector: Selector, store: ContentStore | None):
    """The report, and what `freeze` writes from: the spec, the selection and the committed
    links (read and hashed once)."""
    spec, spec_sha = read_spec(objects, keys)
    check_band_configs(spec, objects.location(keys.spec))
    links = committed_links(objects, keys)
    taken_back = retracted(objects, keys)  # retracted tasks are never candidates
    pool = [c for c in candidates_from(links) if c.task_id not in taken_back]
    chosen = selector(pool, dict(spec.splits), spec.max_per_source, spec.selection_seed)
    gaps = [gap for rule in RULES for gap in rule(chosen, spec)] + pin_gaps(pool, spec)
    # Lineage across revisions: a family frozen into one split elsewhere in the namespace
    # must not land in another here (train on r1's test task's sibling, and r1 leaks).
    across = cross_revision_pairs(chosen, frozen_elsewhere(objects, keys))
    gaps += [Gap("lineage_across_revisions", pair.message(keys.namespace)) for pair in across]
    bands = _bands(objects, keys, spec, [link for link in links if link.task_id not in taken_back], chosen)
    gaps += difficulty_bands(chosen, spec, {b.task_id: b for b in bands})
    digest = semantic_digest(chosen)
    # Determinism is a rule too: the same input in another order must give the same choice.
    again = selector(list(reversed(pool)), dict(spec.splits), spec.max_per_source, spec.selection_seed)
    if semantic_digest(again) != digest:
        gaps.append(Gap("selection_deterministic",
                        "the selection changed when the candidates were listed in another order"))
    if store is not None:
        picked_ids = {c.publication_id for tasks in chosen.values() for c in tasks}
        gaps += privacy_gaps(objects, store, [link for link in links if link.publication_id in picked_ids])
        gaps += [Gap("integrity", problem) for problem in verify_revision(objects, keys).problems]
    picked = {c.task_id for tasks in chosen.values() for c in tasks}
    report = FreezeReport(
        namespace=keys.namespace, revision=keys.revision, freeze_ready=not gaps,
        selection_seed=spec.selection_seed, candidates=len(pool),
        splits={name: SplitSummary(
            target=spec.splits[name], count=len(tasks), tasks=[c.task_id for c in tasks],
            sources=sorted({c.source for c in tasks}), groups=sorted({c.workflow_group for c in tasks}),
            professions=sorted({c.profession for c in tasks}), families=sorted({c.family for c in tasks}))
            for name, tasks in chosen.items()},
        unused=sorted(c.task_id for c in pool if c.task_id not in picked),
        gaps=gaps, semantic_digest=digest, spec_sha256=spec_sha,
        retracted=[{k: r[k] for k in ("task_id", "reason", "by", "at")}
                   for _, r in sorted(taken_back.items())],
        lineage_pairs=[asdict(pair) for pair in selection_pairs(chosen) + across],
        bands=bands, possibly_impossible=[b.task_id for b in bands if b.possibly_impossible])
    return report, spec, chosen, links


def frozen_elsewhere(objects: ObjectStore, keys: RevisionKeys) -> list[Placed]:
    """Every task of the namespace's other frozen revisions, where its manifest put it (a
    manifest frozen before lineage: the family is its source, the root its task id)."""
    return [Placed(e["task_id"], split, e.get("lineage_root") or e["task_id"],
                   e.get("lineage_family") or e["source"], other.revision)
            for other, split, e in frozen_entries(objects, keys.namespace) if other != keys]


def _bands(objects: ObjectStore, keys: RevisionKeys, spec, links, chosen) -> list[TaskBand]:
    """Every candidate's band from the revision's difficulty records, counts held to the
    verifier version each candidate has now."""
    latest = {link.task_id: link for link in links}  # the candidates' links (the latest per task)
    records = read_difficulty(objects, keys)
    versions = {t: verifier_version(objects, link) for t, link in latest.items()} if records else {}
    placed = {c.task_id: split for split, tasks in chosen.items() for c in tasks}
    return task_bands(spec, list(latest.values()), placed, records, versions)


def freeze_check(objects: ObjectStore, keys: RevisionKeys, selector: Selector = select,
                 store: ContentStore | None = None) -> FreezeReport:
    """With the content store (`store`), also the export checkpoint over every selected
    publication (privacy findings, unreviewed coverage_pending files) and their integrity."""
    return _check(objects, keys, selector, store)[0]


def manifest_bytes(doc: dict) -> bytes:
    return json.dumps(doc, indent=2, ensure_ascii=False).encode() + b"\n"


def freeze(objects: ObjectStore, keys: RevisionKeys, created_at: str,
           selector: Selector = select, store: ContentStore | None = None) -> FreezeResult:
    report, spec, chosen, links = _check(objects, keys, selector, store)
    if not report.freeze_ready:
        raise FreezeNotReady(keys, report.gaps)
    head = links[-1]
    chain_head = {"sequence": head.sequence, "sha256": head.publication_sha256}
    doc = build_document("split-manifest", {
        "namespace": keys.namespace, "revision": keys.revision,
        "selection_seed": spec.selection_seed, "spec_sha256": report.spec_sha256,
        "semantic_digest": report.semantic_digest,
        "splits": {name: [{"task_id": c.task_id, "task_version": c.task_version,
                           "publication_id": c.publication_id, "publication_sha256": c.publication_sha256,
                           "source": c.source, "workflow_group": c.workflow_group,
                           "profession": c.profession, "lineage_root": c.root, "lineage_family": c.family,
                           **({"lineage_split": c.lineage_split} if c.lineage_split else {})}
                          for c in tasks]
                   for name, tasks in chosen.items()},
    }, objects.location(keys.manifest))
    data = manifest_bytes(doc)
    already = not objects.put_if_absent(keys.manifest, data)
    if already:
        data = objects.get(keys.manifest)
        existing = json.loads(data)
        if existing["semantic_digest"] != report.semantic_digest:
            raise FrozenRevisionImmutable(
                f"dataset {keys.namespace} revision {keys.revision} froze already with another selection "
                f"(semantic digest {existing['semantic_digest']}, now {report.semantic_digest}); "
                f"a frozen revision is immutable: start a new revision")
    sha = hashlib.sha256(data).hexdigest()
    # Records of this freeze, not part of the manifest: the first freeze's stand.
    objects.put_if_absent(keys.freeze_report, json.dumps(
        {**report.to_dict(), "frozen_at": created_at, "chain_head": chain_head}, indent=2).encode() + b"\n")
    event = build_document("handoff-event", {
        "event_id": f"{keys.namespace}-{keys.revision}-{sha[:12]}",
        "kind": "freeze",
        "created_at": created_at,
        "subject": {"namespace": keys.namespace, "revision": keys.revision},
        "manifest": {"path": objects.location(keys.manifest), "sha256": sha,
                     "semantic_digest": report.semantic_digest, "chain_head": chain_head},
    }, "freeze handoff event")
    event_key = handoff_key("freeze", event["event_id"])
    objects.put_if_absent(event_key, json.dumps(event, indent=2).encode() + b"\n")
    return FreezeResult(report=report, manifest=objects.location(keys.manifest), manifest_sha256=sha,
                        semantic_digest=report.semantic_digest, handoff_event=objects.location(event_key),
                        already_frozen=already)
