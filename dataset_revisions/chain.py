"""A dataset revision's hash chain: link n names publication n, the sha256 of its
publication.json and of its records.json, and the sha256 of link n-1's bytes. Links are
create-only objects, so two publishers racing for the same sequence number cannot both win: the
loser re-reads the head and chains behind the winner.

The chain is the revision's record of arrival order and time; the publications themselves hold
neither, so the same task version published in another order is the same publication.json."""

from __future__ import annotations

import json
from collections.abc import Iterable
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
    # The task's lineage (contracts/lineage.py): the split key. "" in links written before
    # lineage: the root is then the seed itself and the family its source (`family`).
    lineage_root: str = ""
    lineage_family: str = ""
    lineage_split: str = ""  # the split the lineage is pinned to ("": none)

    @property
    def workflow_group(self) -> str:
        return self.workflow_primary.split("-", 1)[0]

    @property
    def family(self) -> str:
        return self.lineage_family or self.source

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


def links_of(objects: ObjectStore, publication_folders: Iterable[str]) -> dict[str, ChainLink]:
    """{folder as given: its chain link} for each publication inside a dataset revision, each
    revision's chain read once; a folder outside any revision, or no link names, is left out."""
    chains: dict[RevisionKeys, dict[str, ChainLink]] = {}
    found = {}
    for given in publication_folders:
        keys = revision_of(given)
        if keys is None:
            continue
        if keys not in chains:
            chains[keys] = {link.publication_key: link for link in read_chain(objects, keys)}
        if (link := chains[keys].get(given.strip("/"))) is not None:
            found[given] = link
    return found
