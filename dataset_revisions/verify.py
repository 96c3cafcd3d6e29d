"""`verify`: re-hash every file of a dataset revision and walk its hash chain.

Names every object that changed or went missing: a publication's file whose sha256 differs
from its publication.json or records.json, either document whose sha256 differs from its chain
link, a link whose `previous_link_sha256` is not the sha256 of the link before it, a gap in the
sequence numbers, and — once frozen — a split manifest that no longer matches its freeze event,
or a freeze event whose chain head is not the chain's; and the retraction chain
(retraction.py): each retraction's `previous_retraction_sha256` and the publication it names.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field

from dataset_revisions.chain import read_chain
from dataset_revisions.layout import RevisionKeys
from dataset_revisions.retraction import verify_retractions
from dataset_revisions.revision import object_sha256, read_spec
from dataset_revisions.selection import Candidate, semantic_digest
from storage.objects import ObjectMissing, ObjectStore
from publications.layout import RECORDS, document_key, file_key, records_key


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
    link_shas: dict[int, str | None] = {link.sequence: object_sha256(objects, keys.link(link.sequence))
                                        for link in links}
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
        want = None if link.sequence == 1 else link_shas.get(link.sequence - 1)
        if link.previous_link_sha256 != want:
            report.problems.append(f"chain: link {link.sequence} ({link.publication_id}) names previous "
                                   f"{link.previous_link_sha256}, the link before it has sha256 {want}")
        rj_key = records_key(link.publication_key)
        rj_sha = object_sha256(objects, rj_key)
        if rj_sha is None:
            report.problems.append(f"missing: {objects.location(rj_key)}")
        elif rj_sha != link.records_sha256:
            report.problems.append(f"changed: {objects.location(rj_key)} (sha256 {rj_sha}, "
                                   f"chain link {link.sequence} records {link.records_sha256})")
        entries = [(entry, "publication.json") for entry in json.loads(objects.get(pj_key))["files"]]
        if rj_sha is not None:
            entries += [(entry, RECORDS) for entry in json.loads(objects.get(rj_key))["files"]]
        listed = {pj_key, rj_key}
        for entry, lister in entries:
            key = file_key(link.publication_key, entry["path"])
            listed.add(key)
            report.files += 1
            sha = object_sha256(objects, key)
            if sha is None:
                report.problems.append(f"missing: {objects.location(key)}")
            elif sha != entry["sha256"]:
                report.problems.append(f"changed: {objects.location(key)} (sha256 {sha}, "
                                       f"{lister} records {entry['sha256']})")
        for key in objects.list(f"{link.publication_key}/"):
            if key not in listed:
                report.problems.append(f"unlisted: {objects.location(key)} is in neither publication.json "
                                       f"nor {RECORDS}")
    if on_publication:
        on_publication(report.publications, len(links))
    _verify_freeze(objects, keys, shas, report)
    report.problems += verify_retractions(objects, keys, links)
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
    announced = [e for e in events if e["manifest"]["sha256"] == sha]
    if not announced:
        report.problems.append(f"changed: {objects.location(keys.manifest)} (sha256 {sha} is not the one "
                               f"its freeze handoff event announced)")
    for event in announced:
        head = event["manifest"]["chain_head"]
        if shas.get(head["sequence"]) != head["sha256"]:
            report.problems.append(f"freeze: the freeze event's chain head (sequence {head['sequence']}) "
                                   f"does not match the chain")
    by_sha = set(shas.values())
    chosen = {split: [Candidate(**e) for e in entries] for split, entries in manifest["splits"].items()}
    for split, entries in chosen.items():
        for c in entries:
            if c.publication_sha256 not in by_sha:
                report.problems.append(f"freeze: {split} task {c.task_id} names publication "
                                       f"{c.publication_id} that is not in the chain with that sha256")
    if semantic_digest(chosen) != manifest["semantic_digest"]:
        report.problems.append("freeze: the manifest's semantic digest does not match its splits")
