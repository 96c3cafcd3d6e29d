"""`verify`: re-hash every file of a dataset revision and walk its hash chain.

Names every object that changed or went missing: a publication's file whose sha256 differs
from its publication.json, a publication.json whose sha256 differs from its chain link, a link
whose `previous` does not match the link before it, a gap in the sequence numbers, and — once
frozen — a split manifest that no longer matches its freeze event or the chain.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field

from dataset_revisions.chain import read_chain
from dataset_revisions.layout import RevisionKeys
from dataset_revisions.revision import object_sha256, read_spec
from dataset_revisions.selection import Candidate, semantic_digest
from storage.objects import ObjectMissing, ObjectStore
from publications.layout import document_key, file_key


@dataclass
class VerifyReport:
    namespace: str
    revision: str
    publications: int = 0
    files: int = 0
    frozen: bool = False
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_revision(objects: ObjectStore, keys: RevisionKeys,
                    on_publication: Callable[[int, int], None] | None = None) -> VerifyReport:
    """`on_publication(done, total)` after each publication (progress bars)."""
    read_spec(objects, keys)  # DatasetNotFound when there is no such revision
    report = VerifyReport(keys.namespace, keys.revision)
    links = read_chain(objects, keys)
    shas: dict[int, str] = {}
    for expected, link in enumerate(links, start=1):
        if link.sequence != expected:
            report.problems.append(f"chain: sequence {expected} is missing (next link is {link.sequence})")
            break
    for link in links:
        if on_publication:
            on_publication(report.publications, len(links))
        report.publications += 1
        pj_key = document_key(link.publication_key)
        pj_sha = object_sha256(objects, pj_key)
        shas[link.sequence] = link.publication_sha256
        if pj_sha is None:
            report.problems.append(f"missing: {objects.location(pj_key)}")
            continue
        if pj_sha != link.publication_sha256:
            report.problems.append(f"changed: {objects.location(pj_key)} (sha256 {pj_sha}, "
                                   f"chain link {link.sequence} records {link.publication_sha256})")
        doc = json.loads(objects.get(pj_key))
        prev = (doc.get("dataset") or {}).get("previous")
        want = None if link.sequence == 1 else shas.get(link.sequence - 1)
        if (prev or {}).get("sha256") != want:
            report.problems.append(f"chain: publication {link.publication_id} (sequence {link.sequence}) "
                                   f"names previous {prev and prev.get('sha256')}, the chain has {want}")
        listed = set()
        for entry in doc["files"]:
            key = file_key(link.publication_key, entry["path"])
            listed.add(key)
            report.files += 1
            sha = object_sha256(objects, key)
            if sha is None:
                report.problems.append(f"missing: {objects.location(key)}")
            elif sha != entry["sha256"]:
                report.problems.append(f"changed: {objects.location(key)} (sha256 {sha}, "
                                       f"publication.json records {entry['sha256']})")
        for key in objects.list(f"{link.publication_key}/"):
            if key not in listed and key != pj_key:
                report.problems.append(f"unlisted: {objects.location(key)} is not in publication.json")
    if on_publication:
        on_publication(report.publications, len(links))
    _verify_freeze(objects, keys, shas, report)
    return report


def _verify_freeze(objects: ObjectStore, keys: RevisionKeys, shas: dict[int, str],
                   report: VerifyReport) -> None:
    try:
        data = objects.get(keys.manifest)
    except ObjectMissing:
        return
    report.frozen = True
    sha = hashlib.sha256(data).hexdigest()
    manifest = json.loads(data)
    events = [json.loads(objects.get(k)) for k in objects.list("handoff/freeze/")
              if f"/{keys.namespace}-{keys.revision}-" in k]
    if not any(e["manifest"]["sha256"] == sha for e in events):
        report.problems.append(f"changed: {objects.location(keys.manifest)} (sha256 {sha} is not the one "
                               f"its freeze handoff event announced)")
    head = manifest["chain_head"]
    if shas.get(head["sequence"]) != head["sha256"]:
        report.problems.append(f"freeze: the manifest's chain head (sequence {head['sequence']}) does not "
                               f"match the chain")
    by_sha = set(shas.values())
    chosen = {split: [Candidate(**e) for e in entries] for split, entries in manifest["splits"].items()}
    for split, entries in chosen.items():
        for c in entries:
            if c.publication_sha256 not in by_sha:
                report.problems.append(f"freeze: {split} task {c.task_id} names publication "
                                       f"{c.publication_id} that is not in the chain with that sha256")
    if semantic_digest(chosen) != manifest["semantic_digest"]:
        report.problems.append("freeze: the manifest's semantic digest does not match its splits")
