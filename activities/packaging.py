"""Stage 07: an immutable publication — a Harbor task directory plus the evidence that made it.

The publication is assembled in a local staging folder, then written to the object store
(`storage/objects.py`: a directory or S3) file by file with create-only writes, and
`publication.json` last: a publication exists once its publication.json does, so a reader never
takes a half-written one for a whole one. `publication.json` lists the task version's files
(`task/`, `private/`) with their sha256 and chains to the previous revision of the same task; it
holds no wall time, so the same inputs publish the same bytes. The run's records (admission,
calibration, the frozen record, stage-06 trials) and the publication time are listed in
`records.json` beside it. Inside a dataset revision a hash-chain link (`dataset_revisions/chain.py`)
pins both. A handoff event announces it.
"""

from __future__ import annotations

import dataclasses
import json
import re
import tempfile
from pathlib import Path
from typing import cast

from temporalio import activity
from temporalio.exceptions import ApplicationError

from contracts.errors import (DATASET_REVISION_FROZEN, PRIVACY_COVERAGE_REJECTED,
                               PUBLICATION_CONFLICT)
from activities.harbor_task import write_harbor_task, write_packaged_grading
from storage.content import ContentStore
from contracts.lineage import instance_metadata, resolve as lineage_of
from contracts.digests import canonical_json_bytes, sha256_file, sha256_hex
from contracts.payloads.admission import PrivacyPending
from contracts.payloads.packaging import ExportScan, PublicationResult, PublishInput
from contracts.validation import build_document
from dataset_revisions.chain import ChainLink, claim, read_chain
from dataset_revisions.layout import RevisionKeys, handoff_key
from publications.layout import (DOCUMENT, FROZEN_TASK, OUTSIDE_REVISIONS, PRIVACY, RECORDS,
                                 document_key, is_version_file, records_key)
from publications.writer import publication_bytes
from dataset_revisions.revision import is_frozen, object_sha256
from privacy.checkpoints import check_export
from privacy.extract import cached_blend_text
from privacy.policy import load_policy_for
from storage.objects import ObjectMissing, ObjectStore

_REVISION = re.compile(r"-r(\d+)$")


class PackagingActivities:
    def __init__(self, store: ContentStore, objects: ObjectStore):
        self.store = store
        self.objects = objects

    @activity.defn(name="scan_export")
    def scan_export(self, req: PublishInput) -> ExportScan:
        """The export checkpoint on exactly what `publish_task` will publish. Findings raise
        `PrivacyFinding`; files no scanner could read come back pending for a reviewer."""
        with tempfile.TemporaryDirectory(prefix="arkevo-export-") as tmp:
            staging = Path(tmp) / "publication"
            self._write_contents(req, staging)
            report, pending = self._export_report(req, staging)
        return ExportScan(self.store.put_json(report.as_dict()), pending)

    def _export_report(self, req: PublishInput, staging: Path):
        task = json.loads((staging / "task" / "tests" / "task.json").read_text())
        report = check_export(staging, load_policy_for(task["sanitization_policy"]), self.store)
        pending = [PrivacyPending(f"admission:{p.file}", p.sha256, p.reason) for p in req.privacy_pending
                   if cached_blend_text(self.store, p.sha256) is None]  # still unread
        return report, pending + [PrivacyPending(p.file, p.sha256, p.reason) for p in report.pending]

    @activity.defn(name="publish_task")
    def publish_task(self, req: PublishInput) -> PublicationResult:
        keys = RevisionKeys(req.dataset.namespace, req.dataset.revision) if req.dataset else None
        root = keys.publications if keys else OUTSIDE_REVISIONS
        task_root = f"{root}/{req.frozen.task_id}"
        with tempfile.TemporaryDirectory(prefix="arkevo-publication-") as tmp:
            staging = Path(tmp) / "publication"
            self._write_contents(req, staging)
            self._write_privacy_record(req, staging)
            files = _file_list(staging)
            content_digest = sha256_hex(canonical_json_bytes(_version(files)))
            if keys is not None:
                return self._publish_in_revision(req, keys, task_root, staging, files, content_digest)
            previous = self._latest(task_root)
            if previous and previous[1].get("content_sha256") == content_digest \
                    and self._records_listed(previous[0]) == _records(files):
                # Same version and records already published: make sure its handoff event exists
                # too (an earlier attempt may have died between publication.json and the event).
                return self._announce(req, previous[0], previous[1])
            doc, _, prefix = self._write_files(req, task_root, previous, files, content_digest, None, staging)
            if not self.objects.put_if_absent(document_key(prefix), publication_bytes(doc)):
                if self.objects.get(document_key(prefix)) != publication_bytes(doc):
                    raise ApplicationError(
                        f"{self.objects.location(prefix)} was published by another run meanwhile; "
                        f"retrying picks the next revision", type=PUBLICATION_CONFLICT)
            return self._announce(req, prefix, doc)

    def _publish_in_revision(self, req: PublishInput, keys: RevisionKeys, task_root: str,
                             staging: Path, files: list[dict], content_digest: str) -> PublicationResult:
        """Append to the revision's hash chain: claim the next link (create-only), then commit
        publication.json. A retry after a crash between the two finishes the claimed link."""
        record = cast(dict, self.store.get_json(req.admission_record))
        lineage = _lineage(req.seed_id, record)
        while True:
            links = read_chain(self.objects, keys)
            mine = [link for link in links if link.task_id == req.frozen.task_id
                    and link.content_sha256 == content_digest
                    and self._records_listed(link.publication_key) == _records(files)]
            if mine:  # a retry of this publication: finish it (it may have died after its link)
                link = mine[-1]
                self.objects.put_if_absent(document_key(link.publication_key),
                                           publication_bytes(link.publication))
                return self._announce(req, link.publication_key, link.publication, link.sequence)
            if is_frozen(self.objects, keys):
                raise ApplicationError(
                    f"dataset {keys.namespace} revision {keys.revision} is frozen: a frozen revision "
                    f"is immutable; publish into a new revision", type=DATASET_REVISION_FROZEN,
                    non_retryable=True)
            head = links[-1] if links else None
            dataset = {"namespace": keys.namespace, "revision": keys.revision}
            doc, records, prefix = self._write_files(req, task_root, self._latest(task_root), files,
                                                     content_digest, dataset, staging)
            data = publication_bytes(doc)
            link = ChainLink(
                sequence=head.sequence + 1 if head else 1, publication_id=doc["publication_id"],
                task_id=req.frozen.task_id, task_version=req.frozen.task_version, seed_id=req.seed_id,
                content_sha256=content_digest, publication_key=prefix,
                publication_sha256=sha256_hex(data), records_sha256=sha256_hex(publication_bytes(records)),
                previous_link_sha256=object_sha256(self.objects, keys.link(head.sequence)) if head else None,
                published_at=records["published_at"], source=record["provenance"]["source"],
                workflow_primary=req.frozen.identity.workflow_primary,
                profession_primary=req.frozen.identity.profession_primary, publication=doc,
                lineage_root=lineage["root_seed"], lineage_family=lineage["family"],
                lineage_split=lineage.get("split", ""))
            if claim(self.objects, keys, link):
                self.objects.put_if_absent(document_key(prefix), data)
                activity.logger.info("published %s as link %d of %s/%s", doc["publication_id"],
                                     link.sequence, keys.namespace, keys.revision)
                return self._announce(req, prefix, doc, link.sequence)
            # another publication took that link: chain behind it

    def _write_files(self, req: PublishInput, task_root: str, previous: tuple[str, dict] | None,
                     files: list[dict], content_digest: str, dataset: dict | None,
                     staging: Path) -> tuple[dict, dict, str]:
        """publication.json's and records.json's documents and their folder, every file and
        records.json written there. A folder holding other bytes belongs to another run's
        unfinished publication: take the next revision number rather than touch it."""
        first = (previous[1]["revision"] + 1) if previous else 1
        for revision in range(first, first + 16):
            doc = self._document(req, previous, revision, _version(files), content_digest, dataset)
            records = build_document("publication-records", {
                "publication_id": doc["publication_id"], "published_at": req.created_at,
                "files": _records(files),
            }, f"{doc['publication_id']}/{RECORDS}")
            prefix = self._upload(task_root, doc, records, staging)
            if prefix is not None:
                return doc, records, prefix
        raise ApplicationError(f"{self.objects.location(task_root)}: revisions {first}..{first + 15} are all "
                               f"held by unfinished publications", type=PUBLICATION_CONFLICT)

    def _document(self, req: PublishInput, previous: tuple[str, dict] | None, revision: int,
                  files: list[dict], content_digest: str, dataset: dict | None) -> dict:
        pub_id = f"{req.frozen.task_id}-r{revision}"
        doc = {
            "publication_id": pub_id,
            "task_id": req.frozen.task_id,
            "task_version": req.frozen.task_version,
            "revision": revision,
            "previous": {"publication_id": previous[1]["publication_id"],
                         "sha256": object_sha256(self.objects, document_key(previous[0]))}
            if previous else None,
            "pipeline_ref": req.frozen.pipeline_ref,
            "content_sha256": content_digest,
            "files": files,
        }
        if dataset is not None:
            doc["dataset"] = dataset
        return build_document("publication", doc, f"{pub_id}/{DOCUMENT}")

    def _upload(self, task_root: str, doc: dict, records: dict, staging: Path) -> str | None:
        """Every file and records.json, create-only (publication.json is the caller's); None
        when the folder holds other bytes (a retry of this same publication finds its own bytes
        there, and goes on)."""
        prefix = f"{task_root}/{doc['publication_id']}"
        if self.objects.exists(document_key(prefix)):
            return None
        for entry in [*doc["files"], *records["files"]]:
            key = f"{prefix}/{entry['path']}"
            if not self.objects.put_file_if_absent(key, staging / entry["path"]) and \
                    object_sha256(self.objects, key) != entry["sha256"]:
                activity.logger.warning("%s holds another run's bytes; taking the next revision",
                                        self.objects.location(key))
                return None
        data = publication_bytes(records)
        if not self.objects.put_if_absent(records_key(prefix), data) and \
                self.objects.get(records_key(prefix)) != data:
            activity.logger.warning("%s holds another run's records; taking the next revision",
                                    self.objects.location(records_key(prefix)))
            return None
        return prefix

    def _write_privacy_record(self, req: PublishInput, staging: Path) -> None:
        """Scan again what is about to be published (the same bytes scan_export saw: a finding
        still raises) and ship the report with the reviewer's decision as review/privacy.json.
        Nothing pending is published without a reviewer's approval of exactly those files."""
        report, pending = self._export_report(req, staging)
        review = req.privacy_review
        reviewed = {(f.file, f.sha256) for f in review.files} if review else set()
        unsettled = [p for p in pending if (p.file, p.sha256) not in reviewed]
        if unsettled or (review is not None and not review.approved):
            raise ApplicationError(
                "coverage pending without a reviewer's approval: "
                + ", ".join(f"{p.file} ({p.reason})" for p in unsettled or pending),
                type=PRIVACY_COVERAGE_REJECTED, non_retryable=True)
        record = {"export": report.as_dict(), "pending": [p.__dict__ for p in pending],
                  "review": None if review is None else {
                      "approved": review.approved, "reviewer": review.reviewer, "note": review.note,
                      "reviewed_at": review.reviewed_at, "files": [f.__dict__ for f in review.files]}}
        out = staging / PRIVACY
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")

    def _write_contents(self, req: PublishInput, out: Path) -> None:
        pkg = req.frozen.task_package
        admission = cast(dict, self.store.get_json(req.admission_record))
        lineage = _lineage(req.seed_id, admission)
        # task.toml [metadata] names the task's lineage, so a derivation from the published
        # task (a folder anywhere) knows its root and family; a family instance, its values.
        identity = dataclasses.replace(req.frozen.identity, lineage_root=lineage["root_seed"],
                                       lineage_family=lineage["family"],
                                       lineage_split=lineage.get("split", ""),
                                       family_instance=instance_metadata(admission.get("provenance", {})))
        write_harbor_task(self.store, pkg, out / "task", identity)
        write_packaged_grading(self.store, req.frozen.grading, out / "task" / "tests")
        self.store.materialize_tree(pkg, out / "private", prefix="private/")
        for name, ref in (("evaluation/evaluation-plan.json", req.evaluation.plan),
                          ("evaluation/trials.jsonl", req.evaluation.trials_jsonl),
                          ("evaluation/report.json", req.evaluation.report),
                          ("review/calibration-report.json", req.frozen.calibration_report),
                          (FROZEN_TASK, req.frozen.frozen_record),
                          ("admission/admission-record.json", req.admission_record),
                          ("trial-solves/pilot-record.json", req.pilot_record),
                          ("authoring/authoring-record.json", req.authoring_record)):
            if ref is not None:  # optional: the authoring record (a model-authored draft), the pilot record
                self.store.fetch_to(ref, out / name)

    def _announce(self, req: PublishInput, prefix: str, doc: dict,
                  sequence: int | None = None) -> PublicationResult:
        """Write the handoff event (create-only: at least once, and the first one stands)."""
        pub_key = document_key(prefix)
        pub_bytes = self.objects.get(pub_key)
        pub_sha = sha256_hex(pub_bytes)
        event = build_document("handoff-event", {
            "event_id": f"{doc['publication_id']}-{pub_sha[:12]}",
            "kind": "publication",
            "created_at": req.created_at,
            "subject": {"task_id": req.frozen.task_id, "task_version": req.frozen.task_version},
            "publication": {"publication_id": doc["publication_id"],
                            "path": self.objects.location(prefix), "sha256": pub_sha},
        }, "handoff event")
        event_key = handoff_key("publication", event["event_id"])
        self.objects.put_if_absent(event_key, json.dumps(event, indent=2).encode() + b"\n")
        return PublicationResult(
            publication_id=doc["publication_id"],
            path=self.objects.location(prefix),
            publication_json=self.store.put_bytes(pub_bytes),
            file_count=len(doc["files"]),
            handoff_event=self.objects.location(event_key),
            dataset_sequence=sequence,
        )

    def _records_listed(self, prefix: str) -> list[dict] | None:
        """The files a publication's records.json lists (None without one)."""
        try:
            return json.loads(self.objects.get(records_key(prefix)))["files"]
        except ObjectMissing:
            return None

    def _latest(self, task_root: str) -> tuple[str, dict] | None:
        """The task's committed publication with the highest revision under `task_root`."""
        pubs = []
        for key in self.objects.list(f"{task_root}/"):
            prefix, _, name = key.rpartition("/")
            if name == DOCUMENT and prefix.count("/") == task_root.count("/") + 1 \
                    and _REVISION.search(prefix):
                doc = json.loads(self.objects.get(key))
                pubs.append((doc["revision"], prefix, doc))
        if not pubs:
            return None
        _, prefix, doc = max(pubs, key=lambda t: t[0])
        return prefix, doc


def _lineage(seed_id: str, record: dict) -> dict:
    """The task's lineage from its admission record (resolved there; an older record without
    it: resolved from its provenance, the seed its own root; a record without provenance:
    none, "" — nothing is written for it)."""
    if record.get("lineage"):
        return record["lineage"]
    return lineage_of(seed_id, record["provenance"]) if "provenance" in record else {"root_seed": "", "family": ""}


def _version(files: list[dict]) -> list[dict]:
    """The files publication.json lists: the task version (publications/layout.py)."""
    return [f for f in files if is_version_file(f["path"])]


def _records(files: list[dict]) -> list[dict]:
    """The files records.json lists: everything else the run recorded."""
    return [f for f in files if not is_version_file(f["path"])]


def _file_list(root: Path) -> list[dict]:
    return [
        {"path": p.relative_to(root).as_posix(), "sha256": sha256_file(p), "size": p.stat().st_size}
        for p in sorted(root.rglob("*")) if p.is_file()
    ]
