"""The frozen tasks a campaign evaluates, read from what was published — never re-derived.

A dataset revision's split comes from its split manifest (the revision must be frozen); its
candidates (any revision) from its chain's committed links; a
publication is named by its folder in the object store (`datasets/<ns>/<rev>/publications/
<task>/<pub>` or `publications/<task>/<pub>`). Each publication is checked before it is used:
publication.json has the sha256 the manifest recorded, and `review/frozen-task.json` (the
frozen record: package, grading spec with its verifier version, input baseline) has the sha256
publication.json lists. The task package itself is the frozen tree in the content store.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path
from typing import cast

from storage.content import ContentStore
from contracts.payloads.authoring import GradingSpec, TaskIdentity
from contracts.payloads.campaigns import PlannedTask
from contracts.payloads.common import BlobRef, DatasetRef
from contracts.payloads.review import FrozenTask
from dataset_revisions.chain import ChainLink
from dataset_revisions.layout import RevisionKeys
from dataset_revisions.revision import committed_links
from publications.layout import FROZEN_TASK, TASK_TOML, folder as publication_folder
from publications.reader import read_publication
from storage.objects import ObjectMissing, ObjectStore


class CampaignSourceError(ValueError):
    """The tasks named for a campaign cannot be evaluated as they stand (message says why)."""


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _get(objects: ObjectStore, key: str) -> bytes:
    try:
        return objects.get(key)
    except ObjectMissing:
        raise CampaignSourceError(f"{objects.location(key)}: not found") from None


def _ref(doc: dict | None) -> BlobRef | None:
    return None if doc is None else BlobRef(doc["key"], doc["sha256"], doc["size"])


def publication_key(objects: ObjectStore, name: str) -> str:
    """A publication folder as an object key: given as a key, or as an absolute local path inside
    the object store's directory."""
    path = Path(name)
    if path.is_absolute():
        probe = objects.local_path("publications")  # any key: its parent is the root
        root = probe.parent if probe is not None else None
        if root is None:
            raise CampaignSourceError(f"publications: {name} is a local path but the object "
                                      "store is not a directory; name the publication by its key")
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            raise CampaignSourceError(f"publications: {name} is not inside the object store "
                                      f"({root})") from None
    return name.strip("/")


def read_split(objects: ObjectStore, dataset: DatasetRef, split: str) -> tuple[list[tuple[str, str]], str]:
    """[(publication folder key, publication.json sha256)] of a frozen revision's split, and the
    manifest's sha256."""
    keys = RevisionKeys(dataset.namespace, dataset.revision)
    if not objects.exists(keys.manifest):
        if not objects.exists(keys.spec):
            raise CampaignSourceError(f"dataset {dataset.namespace}/{dataset.revision} not found "
                                      f"({objects.location(keys.spec)})")
        raise CampaignSourceError(
            f"dataset {dataset.namespace}/{dataset.revision} is not frozen "
            f"(no {objects.location(keys.manifest)}): campaigns evaluate frozen splits only; "
            "run `arkevo dataset freeze` first")
    data = _get(objects, keys.manifest)
    manifest = json.loads(data)
    splits = manifest["splits"]
    if split not in splits:
        raise CampaignSourceError(f"{objects.location(keys.manifest)}: splits: no split {split!r} "
                                  f"(it has {', '.join(sorted(splits))})")
    if not splits[split]:
        raise CampaignSourceError(f"{objects.location(keys.manifest)}: splits.{split} is empty")
    return ([(publication_folder(keys.publications, e["task_id"], e["publication_id"]), e["publication_sha256"])
             for e in splits[split]], _sha(data))


def read_candidates(objects: ObjectStore, dataset: DatasetRef) -> list[tuple[str, str]]:
    """[(publication folder key, publication.json sha256)] of every committed candidate of a
    revision, frozen or not — the latest publication of each task, as freeze-check sees them —
    so bands can be measured before the freeze."""
    keys = RevisionKeys(dataset.namespace, dataset.revision)
    if not objects.exists(keys.spec):
        raise CampaignSourceError(f"dataset {dataset.namespace}/{dataset.revision} not found "
                                  f"({objects.location(keys.spec)})")
    latest = {link.task_id: link for link in committed_links(objects, keys)}  # in chain order: the last stands
    if not latest:
        raise CampaignSourceError(f"dataset {dataset.namespace}/{dataset.revision} has no committed "
                                  f"publication yet ({objects.location(keys.chain)})")
    return [(link.publication_key, link.publication_sha256) for _, link in sorted(latest.items())]


def read_task(objects: ObjectStore, store: ContentStore, folder: str, expected_sha256: str | None,
              split: str | None, link: ChainLink | None = None) -> PlannedTask:
    """`link`: the publication's chain link inside a dataset revision (`links_of`): the frozen
    record is a record of the run, in records.json, held to the sha256 the link pins."""
    pub = read_publication(objects, folder, expected_sha256, error=CampaignSourceError,
                           records_sha256=link.records_sha256 if link else None)
    publication, pub_sha, where = pub.doc, pub.sha256, pub.location()
    frozen_bytes = pub.read(FROZEN_TASK)
    toml_bytes = pub.read(TASK_TOML)
    doc = json.loads(frozen_bytes)
    meta = tomllib.loads(toml_bytes.decode())["metadata"]
    package = cast(BlobRef, _ref(doc["task_package"]))  # a frozen task always has its package
    if not store.exists(package):
        raise CampaignSourceError(f"{where}: its frozen task package {package.sha256[:12]} is not in "
                                  "this deployment's content store (ARKEVO_STORE)")
    g = doc["grading"]
    grading = GradingSpec(
        task_id=g["task_id"], profile=g["profile"], params=g["params"],
        verification=g["verification"], uses_vl=g["uses_vl"], judge=g["judge"],
        judge_config=_ref(g["judge_config"]), verifier_basis=g["verifier_basis"],
        verifier_version=g["verifier_version"], reference_evidence=_ref(g.get("reference_evidence")))
    identity = TaskIdentity(
        task_id=meta["task_id"], task_version=meta["task_version"],
        verifier_version=meta["verifier_version"], pipeline_digest=meta["pipeline_digest"],
        workflow_primary=meta["workflow_primary"], profession_primary=meta["profession_primary"],
        blender_version=meta.get("blender_version", ""))
    if (identity.task_id, identity.task_version, identity.verifier_version) != (
            doc["task_id"], doc["task_version"], grading.verifier_version):
        raise CampaignSourceError(f"{where}: task.toml and {FROZEN_TASK} disagree on the "
                                  "task id, version or verifier version")
    frozen = FrozenTask(
        task_id=doc["task_id"], task_version=doc["task_version"], task_package=package,
        frozen_record=store.put_bytes(frozen_bytes),
        calibration_report=cast(BlobRef, _ref(doc["calibration_report"])), identity=identity, grading=grading,
        input_reward=doc["input_reward"], pipeline_ref=doc["pipeline_ref"])
    return PlannedTask(publication["publication_id"], pub_sha, split, frozen)
