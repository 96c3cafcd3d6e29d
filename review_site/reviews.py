"""Human reviews on the review site: the evidence page of a task that stage 05 holds for a
reviewer's decision (`review: human`, docs/datasets.md "Human review").

    site/reviews/<task>.html                     a waiting task: the task page's layout over what
                                                 stage 05 holds in the content store
    site/reviews/<task>/calibration-<sample>.html  each calibration sample, as on a task page

A waiting task is not published: its pending record (`reviews/pending/<task>.json`, written by
`ReviewActivities.record_human_review`) names the task package tree and the calibration report
in the content store. `PendingPackage` reads those as a publication is read (the files under
the paths a publication would give them, each blob held to its sha256), so `task_pages` builds
the page. Decided records (accepted, rejected, timed out) are listed with their decision.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from contracts.payloads.common import BlobRef
from publications.reader import Publication
from review_site.assets import Assets
from review_site.pages import Pages, renders, slug, task_pages
from review_site.plots import Plots
from review_site.sources import PublicationInput, SiteSourceError, Source, Taxonomy
from storage.content import ContentStore, StoreIntegrityError
from storage.objects import ObjectMissing

# activities.review.pending_review_key's folder: the site reads the worker's records, it does
# not import the worker side.
PENDING = "reviews/pending/"
CALIBRATION = "review/calibration-report.json"
# where a package tree's paths sit in a publication (activities/harbor_task.write_harbor_task)
PACKAGE_PATHS = (("instruction.md", "task/instruction.md"), ("workspace/", "task/environment/workspace/"),
                 ("tests/", "task/tests/"), ("solution/", "task/solution/"), ("private/", "private/"))
BUILD_COMMAND = "arkevo site build --pending-reviews --out <DIR>"


def review_page(task_id: str) -> str:
    """The evidence page of a waiting task, relative to the site root."""
    return f"reviews/{slug(task_id)}.html"


def publication_path(rel: str) -> str:
    for prefix, target in PACKAGE_PATHS:
        if rel.startswith(prefix):
            return target + rel[len(prefix):]
    return "task/" + rel


@dataclass
class PendingPackage(Publication):
    """The publication interface over a waiting task's package tree and calibration report in
    the content store; `folder` is the pending record's key."""

    store: ContentStore | None = field(default=None, repr=False)

    def read(self, rel: str, *, keep: bool = True) -> bytes:
        if rel in self._cache:
            return self._cache[rel]
        assert self.store is not None  # set by pending_package
        entry = self.listed.get(rel)
        if entry is None:
            raise self.error(f"{self.objects.location(self.folder)}: {rel} is not in the task package it names")
        ref = self.store.ref_for(entry["sha256"], entry["size"])
        try:
            data = self.store.get_bytes(ref)
        except ObjectMissing:
            raise self.error(f"{self.objects.location(self.folder)}: {rel} ({self.store.location(ref)}) "
                             "is not in the content store") from None
        except StoreIntegrityError as e:
            raise self.error(f"{self.objects.location(self.folder)}: {rel}: {e}") from None
        if keep:
            self._cache[rel] = data
        return data


@dataclass
class ReviewRecord:
    key: str  # object key of the pending record
    doc: dict

    @property
    def task_id(self) -> str:
        return str(self.doc["task_id"])

    @property
    def state(self) -> str:
        return str(self.doc.get("state", ""))


def read_review_records(source: Source) -> list[ReviewRecord]:
    """Every human review record in the store, by task id."""
    out = []
    for key in sorted(k for k in source.objects.list(PENDING) if k.endswith(".json")):
        doc = source.get_json(key)
        missing = [f for f in ("task_id", "workflow_id", "calibration_report", "task_package", "state")
                   if f not in doc]
        if missing:
            raise SiteSourceError(f"{source.objects.location(key)}: not a human review record "
                                  f"(no {', '.join(missing)})")
        out.append(ReviewRecord(key, doc))
    return out


def _blob(source: Source, record: ReviewRecord, name: str) -> BlobRef:
    where = source.objects.location(record.key)
    doc = record.doc[name]
    try:
        ref = BlobRef(doc["key"], doc["sha256"], doc["size"])
    except (TypeError, KeyError):
        raise SiteSourceError(f"{where}: {name} is not a store reference") from None
    if not source.store.exists(ref):
        raise SiteSourceError(f"{where}: its {name} ({source.store.location(ref)}) is not in the "
                              "content store: the evidence of this waiting task is missing")
    return ref


def pending_package(source: Source, record: ReviewRecord) -> PublicationInput:
    """The waiting task's package and calibration report as a publication's files."""
    package, report = _blob(source, record, "task_package"), _blob(source, record, "calibration_report")
    where = source.objects.location(record.key)
    try:
        entries = source.store.tree_entries(package)
    except (ValueError, KeyError, TypeError, StoreIntegrityError) as e:
        raise SiteSourceError(f"{where}: task_package {source.store.location(package)} is not a "
                              f"package tree ({e})") from None
    files = [{"path": publication_path(rel), "sha256": e["sha256"], "size": e["size"]}
             for rel, e in sorted(entries.items())]
    doc: dict[str, Any] = {
        "task_id": record.task_id, "publication_id": "pending review",
        "task_version": "not frozen", "content_sha256": package.sha256, "files": files,
        "revision": None, "pipeline_ref": None, "dataset": None, "previous": None}
    records = {"files": [{"path": CALIBRATION, "sha256": report.sha256, "size": report.size}]}
    pub = PendingPackage(source.objects, record.key, package.sha256, doc, SiteSourceError, records,
                         None, store=source.store)
    return PublicationInput(pub, None)


def review_pages(source: Source, record: ReviewRecord, assets: Assets, plots: Plots,
                 taxonomy: Taxonomy) -> Pages:
    """A waiting task's evidence page and its calibration samples' pages. The reference renders
    and each sample's delivery renders come from the calibration samples that carry them."""
    pub = pending_package(source, record)
    page = review_page(record.task_id)
    _, pages = task_pages(source, pub, assets, plots, taxonomy, [], page=page,
                          trials_dir=f"reviews/{slug(record.task_id)}")
    context = pages[page][1]
    calibration = pub.files.json(CALIBRATION) or {}
    deliveries = []
    for sample, row in zip(calibration.get("samples", []), context["samples"]):
        if sample.get("kind") == "reference" and context["reference"] is None:
            context["reference"] = renders(source, sample.get("renders"), assets)
            continue
        evidence = pages[row["url"][len("../"):]][1]["renders"]
        if evidence:
            deliveries.append({"title": f"calibration {row['sample']} ({row['kind']})", "url": row["url"],
                               "reward": row["reward"], "evidence": evidence})
    context["deliveries"] = deliveries
    context["review"] = review_summary(source, record)
    return pages


def review_summary(source: Source, record: ReviewRecord) -> dict:
    """What the index and the page say of a review: its state, the workflow, the decision."""
    d = record.doc
    return {"task_id": record.task_id, "state": record.state, "workflow_id": d["workflow_id"],
            "task_production_id": d.get("task_production_id"), "requested_at": d.get("requested_at"),
            "timeout_sec": d.get("timeout_sec"), "decision": d.get("decision"),
            "record": source.objects.location(record.key),
            "url": review_page(record.task_id) if record.state == "waiting" else None,
            "commands": [f'arkevo review {verb} {record.task_id} --by <you> --reason "<why>"'
                         for verb in ("accept", "reject")] if record.state == "waiting" else [],
            "evidence": d.get("evidence") or {}}
