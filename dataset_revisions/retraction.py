"""Retracting a published task from a dataset revision (`arkevo dataset retract`).

A retraction never deletes or rewrites a publication: it is one more create-only object,
`retractions/<sequence>.json`, naming the task, its latest committed publication and that
publication's sha256 (from the chain), who retracted it, when and why, and the sha256 of the
retraction before it. Two retractions racing for one sequence number cannot both win: the
loser re-reads and chains behind the winner (as chain.py's links do). Freezes, campaigns and
exports read `retracted()` and leave the task out, saying so; `verify` walks this chain too.
A frozen revision can be retracted from as well: its split manifest stays as it froze.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from contracts.validation import ContractError, build_document, validate_document
from dataset_revisions.chain import ChainLink
from dataset_revisions.layout import RevisionKeys
from dataset_revisions.revision import committed_links, read_spec
from storage.objects import ObjectStore


class UnknownTask(LookupError):
    """The revision holds no committed publication of that task: nothing to retract."""


@dataclass
class RetractResult:
    retraction: dict  # the retraction document (the earlier one when already retracted)
    location: str
    already_retracted: bool


def retraction_bytes(doc: dict) -> bytes:
    return json.dumps(doc, indent=2, ensure_ascii=False).encode() + b"\n"


def read_retractions(objects: ObjectStore, keys: RevisionKeys) -> list[tuple[dict, bytes, str]]:
    """Every retraction document with its bytes and key, in the order of their keys (the
    sequence)."""
    found = []
    for key in sorted(objects.list(keys.retractions)):
        if key.endswith(".json"):
            data = objects.get(key)
            found.append((json.loads(data), data, key))
    return found


def retracted(objects: ObjectStore, keys: RevisionKeys) -> dict[str, dict]:
    """{task id: its retraction} of the revision (the first one stands)."""
    found: dict[str, dict] = {}
    for doc, _, _ in read_retractions(objects, keys):
        found.setdefault(doc["task_id"], doc)
    return found


def retraction_line(doc: dict) -> str:
    """How every command names a retracted task: `X (reason, by)`."""
    return f"{doc['task_id']} ({doc['reason']}, by {doc['by']})"


def retract(objects: ObjectStore, keys: RevisionKeys, task_id: str, reason: str, by: str,
            at: str) -> RetractResult:
    """Append a retraction of `task_id`. `UnknownTask` when the revision holds no committed
    publication of it, `ContractError` for a blank reason or by; both write nothing. A task
    retracted already is reported as such, and nothing is written."""
    read_spec(objects, keys)  # DatasetNotFound when there is no such revision
    link = {link.task_id: link for link in committed_links(objects, keys)}.get(task_id)  # the last stands
    if link is None:
        raise UnknownTask(f"dataset {keys.namespace} revision {keys.revision}: task {task_id!r} has no "
                          f"committed publication in {objects.location(keys.root)}: nothing to retract")
    while True:
        existing = read_retractions(objects, keys)
        for doc, _, key in existing:
            if doc["task_id"] == task_id:
                return RetractResult(doc, objects.location(key), True)
        sequence = len(existing) + 1
        doc = build_document("retraction", {
            "sequence": sequence, "namespace": keys.namespace, "revision": keys.revision,
            "task_id": task_id, "publication_id": link.publication_id,
            "publication_sha256": link.publication_sha256, "reason": reason, "by": by, "at": at,
            "previous_retraction_sha256": hashlib.sha256(existing[-1][1]).hexdigest() if existing else None,
        }, objects.location(keys.retraction(sequence)))
        if objects.put_if_absent(keys.retraction(sequence), retraction_bytes(doc)):
            return RetractResult(doc, objects.location(keys.retraction(sequence)), False)
        # another retraction took this sequence number: re-read and chain behind it


def verify_retractions(objects: ObjectStore, keys: RevisionKeys, links: list[ChainLink]) -> list[str]:
    """Problems of the retraction chain: a document that is not a retraction, a gap in the
    sequence, a `previous_retraction_sha256` that is not the bytes of the one before, a
    retraction naming a publication the chain does not hold with that sha256."""
    problems = []
    in_chain = {(link.publication_id, link.publication_sha256) for link in links}
    previous: bytes | None = None
    for expected, (doc, data, key) in enumerate(read_retractions(objects, keys), start=1):
        where = objects.location(key)
        try:
            validate_document("retraction", doc, where)
        except ContractError as e:
            problems.append(f"retraction: {e}")
            previous = data
            continue
        if doc["sequence"] != expected:
            problems.append(f"retraction: {where} holds sequence {doc['sequence']} (a gap, or a moved file)")
            break
        want = None if previous is None else hashlib.sha256(previous).hexdigest()
        if doc["previous_retraction_sha256"] != want:
            problems.append(f"retraction: {where} names previous {doc['previous_retraction_sha256']}, "
                            f"the retraction before it has sha256 {want}")
        if (doc["publication_id"], doc["publication_sha256"]) not in in_chain:
            problems.append(f"retraction: {where} names publication {doc['publication_id']} "
                            f"(sha256 {doc['publication_sha256']}) that is not in the chain")
        previous = data
    return problems
