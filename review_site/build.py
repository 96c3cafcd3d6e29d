"""Build the static review site of a dataset revision or of single publications.

    site/index.html                    every task: filters (group, profession, split, text), sortable
    site/tasks/<task>.html             instruction, attachments, evidence, calibration, evaluation, provenance
    site/trials/<task|campaign>/…html  one trial or calibration sample: criteria, VL answers, renders, records
    site/campaigns/<id>.html           per-configuration bars with intervals, paired comparisons
    site/reviews/<task>.html           --pending-reviews: a task waiting for a human decision (reviews.py)
    site/files/<sha256>.<ext>          images, videos and records, content-addressed
    site/plots/<kind>-<digest>.svg     matplotlib plots
    site/.arkevo-site.json             what the last build wrote (incremental builds)

Incremental: a page is written again only when its data (its context, with content-addressed
URLs), its template or the site code changed; files and plots are named by content and never
rewritten. So when a new publication lands, a rebuild writes its pages and the index.
No server is needed: every link is relative (`python -m http.server` or file:// both work).
"""

from __future__ import annotations

from collections import Counter

import hashlib
import json
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from contracts.digests import canonical_json_bytes, sha256_hex
from dataset_revisions.layout import RevisionKeys
from dataset_revisions.report import dataset_report
from dataset_revisions.retraction import read_retractions
from review_site.assets import Assets
from review_site.drift import drift_pages
from review_site.pages import campaign_page, slug, task_pages
from review_site.plots import Plots
from review_site.reviews import PENDING, read_review_records, review_pages, review_summary
from review_site.sources import (SiteSourceError, Source, campaigns_over, publication_folder,
                                 read_publication, read_taxonomy, revision_publications)

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"
STATE = ".arkevo-site.json"
INDEX = "index.html"


class SiteOutputError(ValueError):
    """The output folder cannot take the site (it holds something else)."""


@dataclass
class BuildResult:
    out: Path
    index: Path
    tasks: int
    campaigns: int
    pages_written: int
    pages_unchanged: int
    files_written: int
    plots_drawn: int
    removed: int
    bytes_total: int
    page_bytes: dict[str, int] = field(default_factory=dict)  # kind → bytes of HTML
    seconds: float = 0.0
    reviews: int = 0  # human review records shown (--pending-reviews)
    waiting: int = 0  # of them waiting: each has its evidence page

    def summary(self) -> str:
        weights = ", ".join(f"{k} {v / 1024:.0f} KiB" for k, v in sorted(self.page_bytes.items()))
        reviews = f", {self.reviews} human review(s) ({self.waiting} waiting)" if self.reviews else ""
        return (f"{self.tasks} tasks, {self.campaigns} campaign(s){reviews}: {self.pages_written} pages written, "
                f"{self.pages_unchanged} unchanged, {self.files_written} files and {self.plots_drawn} "
                f"plots new, {self.removed} removed; {self.bytes_total / 1e6:.1f} MB in all "
                f"(HTML: {weights}); {self.seconds:.1f} s")


def code_digest() -> str:
    """The site code, templates and static files: a change rewrites every page."""
    h = hashlib.sha256()
    for path in sorted([*HERE.glob("*.py"), *TEMPLATES.rglob("*"), *STATIC.rglob("*")]):
        if path.is_file():
            h.update(path.relative_to(HERE).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _environment() -> Environment:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                      keep_trailing_newline=True)
    env.filters["short"] = lambda s, n=12: "" if not s else s[:n]
    env.filters["kib"] = lambda b: f"{b / 1024:.1f} KiB" if b is not None else "–"
    env.filters["num"] = lambda v: "–" if v is None else (f"{v:,.1f}" if isinstance(v, float) else f"{v:,}")
    return env


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def _check_out(out: Path) -> None:
    """Refuses a folder that holds something other than a site (nothing of it is touched)."""
    if not (out / STATE).is_file() and out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise SiteOutputError(f"{out}: exists and is not an arkevo site (no {STATE}); "
                              "choose an empty or new folder")


def _claim_out(out: Path) -> dict:
    """The previous build's state. A new folder is claimed before anything is written into
    it, so a build that fails half-way can be rerun in place."""
    state_file = out / STATE
    if state_file.is_file():
        return json.loads(state_file.read_text())
    _write_atomic(state_file, json.dumps({"pages": {}}).encode())
    return {}


def _copy_static(out: Path) -> None:
    for src in sorted(STATIC.rglob("*")):
        if src.is_file():
            dest = out / "static" / src.relative_to(STATIC)
            if not dest.exists() or dest.read_bytes() != src.read_bytes():
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dest)


PAGE_SIZE = 50  # rows of the index's task table per page (site.js pages what the filters keep)


def _index_context(rows: list[dict], campaigns: list[dict], scope: dict) -> dict:
    def values(key: str) -> list[dict]:
        seen = {(r[key]["id"], r[key]["name"]) for r in rows if r[key]["id"]}
        return [{"id": i, "name": n} for i, n in sorted(seen)]

    return {"scope": scope, "rows": rows, "campaigns": campaigns,
            "groups": values("group"), "professions": values("profession"),
            "splits": sorted({r["split"] for r in rows if r["split"]}),
            # roots holding more than one task: a seed family's instances, a derivation's chain
            "families": sorted(f for f, n in Counter(r.get("family", "") for r in rows).items() if f and n > 1),
            "page_size": PAGE_SIZE}


def _mark_retracted(source: Source, dataset: tuple[str, str] | None, rows: list[dict],
                    pages: dict[str, tuple[str, dict]]) -> list[dict]:
    """The revision's retractions, in order; each retracted task's row and page carry its
    retraction (the publication stays on the site, marked)."""
    if dataset is None:
        return []
    found = [doc for doc, _, _ in read_retractions(source.objects, RevisionKeys(*dataset))]
    by_task: dict[str, dict] = {}
    for doc in found:
        by_task.setdefault(doc["task_id"], doc)
    for row in rows:
        row["retracted"] = by_task.get(row["task_id"])
        if row["url"] in pages:
            pages[row["url"]][1]["retracted"] = row["retracted"]
    return found


def build_site(source: Source, out: Path, *, dataset: tuple[str, str] | None = None,
               publications: list[str] | None = None, pending_reviews: bool = False,
               progress: Callable[[int, int, str], None] | None = None) -> BuildResult:
    """Build (or bring up to date) the site in `out`. At most one of `dataset` (namespace,
    revision) or `publications` (folders: object keys or local paths); `pending_reviews` adds
    the store's human review records (reviews.py), and may stand alone."""
    started = time.monotonic()
    if dataset is not None and publications:
        raise SiteSourceError("give a dataset revision or publications, not both")
    if dataset is None and not publications and not pending_reviews:
        raise SiteSourceError("give a dataset revision, publications or pending reviews")
    out = out.resolve()
    _check_out(out)
    if dataset is not None:
        pubs, manifest = revision_publications(source, *dataset)
        keys = RevisionKeys(*dataset)
        spec = source.get_json(keys.spec)
        scope = {"kind": "dataset", "namespace": dataset[0], "revision": dataset[1],
                 "frozen": manifest is not None,
                 "semantic_digest": (manifest or {}).get("semantic_digest"),
                 "manifest_sha256": sha256_hex(source.get(keys.manifest)) if manifest else None,
                 "chain_head": (source.get_json(keys.freeze_report)
                                if source.objects.exists(keys.freeze_report) else {}).get("chain_head"),
                 "splits": {s: len(v) for s, v in (manifest or {}).get("splits", {}).items()},
                 "targets": spec.get("splits", {}),
                 "export_commands": [f"arkevo export split --dataset {dataset[0]}/{dataset[1]} "
                                     f"--split {s} --out {dataset[0]}-{dataset[1]}-{s}.zip"
                                     for s in (manifest or {}).get("splits", {})]}
    elif publications:
        pubs = [read_publication(source, publication_folder(source, p)) for p in publications]
        scope = {"kind": "publications", "folders": [p.folder for p in pubs]}
    else:
        pubs, scope = [], {"kind": "reviews", "folder": source.objects.location(PENDING.rstrip("/"))}
    # Pending records are the store's, not a revision's: shown only when asked for.
    reviews = read_review_records(source) if pending_reviews else []
    if not pubs and not reviews:
        raise SiteSourceError(f"nothing to show: {scope} holds no publication"
                              + (" and no human review record" if pending_reviews else ""))
    campaigns = campaigns_over(source, {p.sha256 for p in pubs})
    previous = _claim_out(out)

    assets, plots = Assets(out, source.store), Plots(out)
    taxonomy = read_taxonomy()
    pages: dict[str, tuple[str, dict]] = {}
    rows = []
    total = len(pubs) + len(campaigns) + 1
    for i, pub in enumerate(pubs):
        if progress:
            progress(i, total, pub.publication["task_id"])
        row, task_set = task_pages(source, pub, assets, plots, taxonomy, campaigns)
        rows.append(row)
        pages |= task_set
    for j, campaign in enumerate(campaigns):
        if progress:
            progress(len(pubs) + j, total, campaign.campaign_id)
        pages |= campaign_page(source, campaign, assets, plots)
    for record in reviews:  # a waiting task's evidence page; a decided one is listed
        if record.state == "waiting":
            pages |= review_pages(source, record, assets, plots, taxonomy)
    review_rows = [review_summary(source, r) for r in reviews]
    campaign_rows = [{"campaign_id": c.campaign_id, "url": f"campaigns/{slug(c.campaign_id)}.html",
                      "mode": c.report.get("mode"), "source_text": c.report.get("source_text"),
                      "trials": len(c.records)} for c in campaigns]
    drift, drift_page = drift_pages(source, dataset)  # the latest verifier drift report, if any
    pages |= drift_page
    yield_ = None
    if dataset is not None:  # what the revision yielded and cost (`arkevo dataset report`)
        report = dataset_report(source.objects, RevisionKeys(*dataset)).to_dict()
        yield_ = {**report, "plot": plots.funnel(report["funnel"])}
    retractions = _mark_retracted(source, dataset, rows, pages)
    pages[INDEX] = ("index.html.j2", {**_index_context(rows, campaign_rows, scope), "drift": drift,
                                      "yield": yield_, "retractions": retractions,
                                      "reviews": review_rows})
    if progress:
        progress(total - 1, total, "pages")

    env = _environment()
    code = code_digest()
    done_pages: dict[str, str] = {}
    written = unchanged = 0
    page_bytes: dict[str, int] = {}
    for rel, (template, context) in sorted(pages.items()):
        depth = rel.count("/")
        digest = sha256_hex(canonical_json_bytes({"code": code, "template": template, "context": context}))
        done_pages[rel] = digest
        path = out / rel
        kind = template.split(".")[0]
        if previous.get("pages", {}).get(rel) == digest and path.is_file():
            unchanged += 1
        else:
            html = env.get_template(template).render(**context, root="../" * depth, page=rel)
            _write_atomic(path, html.encode())
            written += 1
        page_bytes[kind] = page_bytes.get(kind, 0) + path.stat().st_size
    removed = 0
    for rel in sorted(set(previous.get("pages", {})) - set(done_pages)):
        if (out / rel).is_file():
            (out / rel).unlink()
            removed += 1
    removed += assets.drop_unused()
    removed += plots.drop_unused()
    _copy_static(out)
    _write_atomic(out / STATE, json.dumps({
        "code": code, "scope": scope, "pages": done_pages}, indent=1, sort_keys=True).encode())
    if progress:
        progress(total, total, "done")
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file() and p.name != STATE)
    return BuildResult(out=out, index=out / INDEX, tasks=len(pubs), campaigns=len(campaigns),
                       pages_written=written, pages_unchanged=unchanged,
                       files_written=assets.written, plots_drawn=plots.drawn, removed=removed,
                       bytes_total=size, page_bytes=page_bytes,
                       seconds=round(time.monotonic() - started, 2), reviews=len(reviews),
                       waiting=sum(1 for r in reviews if r.state == "waiting"))
