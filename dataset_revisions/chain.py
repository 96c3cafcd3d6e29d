"""A dataset revision's hash chain: link n names publication n, the sha256 of its
publication.json and of its records.json, and the sha256 of link n-1's bytes. Links are
create-only objects, so two publishers racing for the same sequence number cannot both win: the
loser re-reads the head and chains behind the winner.

The chain is the revision's record of arrival order and time; the publications themselves hold
neither, so the same task version published in another order is the same publication.json."""

from __future__ import annotations

import json
from dataclasses import dataclass

from dataset_revisions.layout import RevisionKeys, revision_of
from storage.objects import ObjectStore


@dataclass(frozen=True)
class ChainLink:
    sequence: int
    publication_id: str
    task_id: str
    task_version: str
    seed_id: str
    content_sha256: str
    publication_key: str  # folder of the publication in the object store
    publication_sha256: str  # sha256 of its publication.json
    records_sha256: str  # sha256 of its records.json
    previous_link_sha256: str | None  # sha256 of link n-1's bytes; None for link 1
    published_at: str
    source: str  # the seed's provenance source
    workflow_primary: str
    profession_primary: str
    publication: dict  # the publication.json document, so a crashed commit can be finished

    @property
    def workflow_group(self) -> str:
        return self.workflow_primary.split("-", 1)[0]

    def to_bytes(self) -> bytes:
        # Not sorted: `publication` keeps its key order, so re-serialising it gives the bytes
        # whose sha256 this link records.
        return json.dumps(self.__dict__, indent=2, ensure_ascii=False).encode() + b"\n"


def read_chain(objects: ObjectStore, keys: RevisionKeys) -> list[ChainLink]:
    """Every link, in sequence order."""
    links = [ChainLink(**json.loads(objects.get(key))) for key in objects.list(keys.chain)
             if key.endswith(".json")]
    return sorted(links, key=lambda link: link.sequence)


def claim(objects: ObjectStore, keys: RevisionKeys, link: ChainLink) -> bool:
    """Append `link` at its sequence number; False when another publisher took it first."""
    return objects.put_if_absent(keys.link(link.sequence), link.to_bytes())


def link_of(objects: ObjectStore, publication_folder: str) -> ChainLink | None:
    """The chain link of a publication inside a dataset revision; None outside one, or when no
    link names it."""
    keys = revision_of(publication_folder)
    if keys is None:
        return None
    folder = publication_folder.strip("/")
    return next((link for link in read_chain(objects, keys) if link.publication_key == folder), None)
