"""What the review site shows, read from what was published — never re-derived.

A dataset revision's publications (`datasets/<ns>/<rev>/publications/<task>/<pub>/`), its split
manifest when frozen, and the campaigns over it (`campaigns/<id>/report.json`) come from the
object store; the records they link (delivery reports, score records, VL answers, renders,
trajectories) from the content store. Every publication file the site shows is held to the
sha256 its publication.json or records.json lists (records.json held to its chain link's).
What the store does not hold (a site built away from the
workers' store) is shown as missing, never invented.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from storage.content import ContentStore
from campaigns.layout import CampaignKeys
from campaigns.records import read_jsonl
from campaigns.tasks import CampaignSourceError, publication_key
from contracts.payloads.common import BlobRef
from dataset_revisions.chain import ChainLink, read_chain
from dataset_revisions.layout import RevisionKeys
from publications.layout import DOCUMENT, document_key, folder
from publications.reader import Publication
from publications.reader import read_publication as read_published
from storage.objects import ObjectMissing, ObjectStore

TAXONOMY = Path(__file__).resolve().parent.parent / "contracts" / "taxonomy.json"
CAMPAIGNS = "campaigns/"
EVIDENCE = "task/tests/reference_evidence/"
PUBLIC = "task/environment/workspace/"


class SiteSourceError(ValueError):
    """What the site was asked to show cannot be read as published (message names the file)."""


@dataclass
class Source:
    """Where the site's data lives: the object store (publications, campaigns) and the content
    store (records, renders)."""

    objects: ObjectStore
    store: ContentStore

    def get(self, key: str) -> bytes:
        try:
            return self.objects.get(key)
        except ObjectMissing:
            raise SiteSourceError(f"{self.objects.location(key)}: not found") from None

    def get_json(self, key: str) -> dict:
        data = self.get(key)
        try:
            return json.loads(data)
        except ValueError as e:
            raise SiteSourceError(f"{self.objects.location(key)}: not JSON ({e})") from None

    def blob(self, doc: dict | None) -> BlobRef | None:
        """A store reference from a record, or None when absent or not in this store."""
        if not doc:
            return None
        ref = BlobRef(doc["key"], doc["sha256"], doc["size"])
        return ref if self.store.exists(ref) else None

    def blob_json(self, doc: dict | None) -> dict | None:
        ref = self.blob(doc)
        return None if ref is None else cast(dict, self.store.get_json(ref))


@dataclass(frozen=True)
class Taxonomy:
    names: dict[str, str]  # profession, group and workflow id → name
    group_of: dict[str, str]  # workflow id → its production group


def read_taxonomy() -> Taxonomy:
    doc = json.loads(TAXONOMY.read_text())
    names = {e["id"]: e["name"] for key in ("professions", "groups", "workflows") for e in doc[key]}
    return Taxonomy(names, {w["id"]: w["group"] for w in doc["workflows"]})


@dataclass
class PublicationInput:
    files: Publication  # each file read at most once, held to its listed sha256
    split: str | None
    link: ChainLink | None = None  # its link in the revision's hash chain

    @property
    def folder(self) -> str:  # object key of the publication folder
        return self.files.folder

    @property
    def sha256(self) -> str:  # of its publication.json
        return self.files.sha256

    @property
    def publication(self) -> dict:
        return self.files.doc


def read_publication(source: Source, folder: str, expected_sha256: str | None = None,
                     split: str | None = None, link: ChainLink | None = None) -> PublicationInput:
    pub = read_published(source.objects, folder, expected_sha256, error=SiteSourceError,
                         records_sha256=link.records_sha256 if link else None)
    return PublicationInput(pub, split, link)


def revision_publications(source: Source, namespace: str, revision: str) -> tuple[list[PublicationInput], dict | None]:
    """Every publication of a revision (the latest per task), each with its split when the
    revision is frozen; and the split manifest (None when not frozen)."""
    keys = RevisionKeys(namespace, revision)
    if not source.objects.exists(keys.spec):
        raise SiteSourceError(f"dataset {namespace}/{revision} not found "
                              f"({source.objects.location(keys.spec)})")
    manifest = source.get_json(keys.manifest) if source.objects.exists(keys.manifest) else None
    links = {link.publication_key: link for link in read_chain(source.objects, keys)}
    if manifest is not None:
        out = []
        for split, entries in manifest["splits"].items():
            for e in entries:
                where = folder(keys.publications, e["task_id"], e["publication_id"])
                out.append(read_publication(source, where, e["publication_sha256"], split, links.get(where)))
        return sorted(out, key=lambda p: p.publication["task_id"]), manifest
    latest: dict[str, str] = {}
    for key in source.objects.list(keys.publications + "/"):
        parts = key[len(keys.publications) + 1:].split("/")
        if len(parts) == 3 and parts[2] == DOCUMENT:
            task, pub = parts[0], parts[1]
            if task not in latest or _revision_number(pub) > _revision_number(latest[task]):
                latest[task] = pub
    return [read_publication(source, where, link=links.get(where))
            for where in (folder(keys.publications, t, p) for t, p in sorted(latest.items()))], None


def _revision_number(publication_id: str) -> int:
    tail = publication_id.rsplit("-r", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def publication_folder(source: Source, name: str) -> str:
    """A publication folder named by its object key or by a local path inside the store."""
    if not Path(name).is_absolute() and Path(name).is_dir():
        name = str(Path(name).resolve())
    try:
        name = publication_key(source.objects, name)
    except CampaignSourceError as e:
        raise SiteSourceError(str(e)) from None
    if not source.objects.exists(document_key(name)):
        raise SiteSourceError(f"{source.objects.location(document_key(name))}: "
                              "not found (not a publication folder)")
    return name.rstrip("/")


@dataclass
class CampaignInput:
    campaign_id: str
    report: dict
    records: list[dict]  # the original run's trials.jsonl, then each recovery round's
    plan: dict


def campaigns_over(source: Source, publication_shas: set[str]) -> list[CampaignInput]:
    """Campaigns whose plan evaluates any of these publications (by publication.json sha256)."""
    ids = sorted({k[len(CAMPAIGNS):].split("/", 1)[0] for k in source.objects.list(CAMPAIGNS)
                  if k.endswith("/report.json") and k.count("/") == 2})
    out = []
    for cid in ids:
        keys = CampaignKeys(cid)
        plan = source.get_json(keys.plan)
        if not {t["publication_sha256"] for t in plan["tasks"]} & publication_shas:
            continue
        records = read_jsonl(source.get(keys.trials))
        for key in sorted(k for k in source.objects.list(f"{keys.root}/recoveries/")
                          if k.endswith("/trials.jsonl")):  # a round's whole set: only its reruns
            records += [dict(r, _recovered=True) for r in read_jsonl(source.get(key)) if r.get("recovery")]
        out.append(CampaignInput(cid, source.get_json(keys.report_json), records, plan))
    return out
