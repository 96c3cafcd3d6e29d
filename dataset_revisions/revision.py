"""Reading a dataset revision: its spec, its published candidates, whether it froze."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import cast

from contracts.models import DatasetSpec
from contracts.validation import validate_document
from dataset_revisions.chain import ChainLink, read_chain
from dataset_revisions.layout import HANDOFF, RevisionKeys
from dataset_revisions.selection import Candidate
from storage.objects import ObjectMissing, ObjectStore
from publications.layout import document_key


class DatasetNotFound(LookupError):
    """No dataset.json for that namespace and revision."""


def read_spec(objects: ObjectStore, keys: RevisionKeys) -> tuple[DatasetSpec, str]:
    """The revision's spec and the sha256 of its dataset.json."""
    try:
        data = objects.get(keys.spec)
    except ObjectMissing:
        raise DatasetNotFound(f"dataset {keys.namespace} revision {keys.revision} not found: "
                              f"no {objects.location(keys.spec)}") from None
    spec = cast(DatasetSpec, validate_document("dataset-spec", json.loads(data), objects.location(keys.spec)))
    return spec, hashlib.sha256(data).hexdigest()


def is_frozen(objects: ObjectStore, keys: RevisionKeys) -> bool:
    return objects.exists(keys.manifest)


def object_sha256(objects: ObjectStore, key: str) -> str | None:
    """sha256 of an object's bytes, None when it is missing (streamed for local files)."""
    local = objects.local_path(key)
    if local is not None:
        if not local.is_file():
            return None
        digest = hashlib.sha256()
        with open(local, "rb") as f:
            while chunk := f.read(1 << 20):
                digest.update(chunk)
        return digest.hexdigest()
    try:
        return hashlib.sha256(objects.get(key)).hexdigest()
    except ObjectMissing:
        return None


def committed_links(objects: ObjectStore, keys: RevisionKeys) -> list[ChainLink]:
    """Links whose publication.json is in place with the sha256 the link records (a link whose
    commit did not finish, or whose publication changed, is not a candidate; `verify` names it)."""
    return [link for link in read_chain(objects, keys)
            if object_sha256(objects, document_key(link.publication_key)) == link.publication_sha256]


def candidates(objects: ObjectStore, keys: RevisionKeys) -> list[Candidate]:
    """The latest committed publication of each task in the revision."""
    return candidates_from(committed_links(objects, keys))


def candidates_from(links: list[ChainLink]) -> list[Candidate]:
    latest: dict[str, ChainLink] = {}
    for link in links:
        latest[link.task_id] = link
    return [Candidate(task_id=link.task_id, task_version=link.task_version, publication_id=link.publication_id,
                      publication_sha256=link.publication_sha256, source=link.source,
                      workflow_group=link.workflow_group, profession=link.profession_primary,
                      lineage_root=link.lineage_root or link.seed_id,
                      lineage_family=link.lineage_family or link.source, lineage_split=link.lineage_split)
            for link in sorted(latest.values(), key=lambda link: link.task_id)]


def frozen_revisions(objects: ObjectStore, namespace: str | None = None) -> list[RevisionKeys]:
    """The frozen revisions (of `namespace`, or all), found by their freeze handoff events
    (one small object each) rather than by listing every publication of every revision."""
    found = set()
    for key in objects.list(f"{HANDOFF}/freeze/"):
        if key.endswith(".json"):
            subject = json.loads(objects.get(key))["subject"]
            if namespace is None or subject["namespace"] == namespace:
                found.add(RevisionKeys(subject["namespace"], subject["revision"]))
    return sorted((k for k in found if is_frozen(objects, k)), key=lambda k: (k.namespace, k.revision))


def split_manifest(objects: ObjectStore, keys: RevisionKeys) -> dict:
    return json.loads(objects.get(keys.manifest))


def frozen_entries(objects: ObjectStore, namespace: str | None = None) -> Iterator[tuple[RevisionKeys, str, dict]]:
    """(revision, split, split-manifest entry) of every task the frozen revisions (of
    `namespace`, or all) hold: where lineage and derivation look for a task's split."""
    for keys in frozen_revisions(objects, namespace):
        for split, entries in split_manifest(objects, keys)["splits"].items():
            for entry in entries:
                yield keys, split, entry


def outcomes(objects: ObjectStore, keys: RevisionKeys) -> list[dict]:
    """The last recorded outcome of each seed (published, failed, ...)."""
    return [json.loads(objects.get(key)) for key in objects.list(keys.outcomes) if key.endswith(".json")]
