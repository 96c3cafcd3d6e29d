"""The latest verifier drift report of a dataset revision (docs/verifier-drift.md) as the review
site shows it: a section on the index and a page of its own (`drift.html`), read from
`datasets/<ns>/<rev>/drift/` and checked against the report's model."""

from __future__ import annotations

import json

from pydantic import ValidationError

from contracts.payloads.verifier_drift import VerifierDriftReport
from dataset_revisions.layout import RevisionKeys
from review_site.pages import Pages, slug
from review_site.sources import SiteSourceError, Source

PAGE = "drift.html"


def latest_drift(source: Source, keys: RevisionKeys) -> tuple[str, VerifierDriftReport] | None:
    """(object key, report) of the newest drift report of the revision; None when none was made."""
    reports = []
    for key in source.objects.list(keys.drift_reports):
        if not key.endswith(".json"):
            continue
        try:
            report = VerifierDriftReport.model_validate(json.loads(source.get(key)))
        except (ValueError, ValidationError) as e:
            raise SiteSourceError(f"{source.objects.location(key)}: not a verifier drift report ({e})") from None
        reports.append((report.created_at, key, report))
    if not reports:
        return None
    _, key, report = max(reports, key=lambda r: (r[0], r[1]))
    return key, report


def drift_pages(source: Source, dataset: tuple[str, str] | None) -> tuple[dict | None, Pages]:
    """The index's drift section (None: no report) and the drift page."""
    found = latest_drift(source, RevisionKeys(*dataset)) if dataset is not None else None
    if found is None:
        return None, {}
    key, report = found
    doc = report.model_dump(mode="json")
    for task in doc["tasks"]:
        task["url"] = f"tasks/{slug(task['task_id'])}.html"
        task["drifting"] = [r for r in task["records"] if r["drift"]]
        task["rescored"] = sum(1 for r in task["records"] if r["rescored"])
        task["skipped"] = [{**r, "task_id": task["task_id"]} for r in task["records"] if not r["rescored"]]
    section = {"url": PAGE, "location": source.objects.location(key), "created_at": report.created_at,
               "code": report.verifier_code.id, "candidate": report.verifier_code.candidate,
               "summary": doc["summary"]}
    return section, {PAGE: ("drift.html.j2", {"report": doc, "location": section["location"]})}
