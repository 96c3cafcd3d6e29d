"""The data of each page: what a template renders, built from published inputs (sources.py).

A page's context is plain JSON-able data; its digest decides whether the page is written again
(build.py), so everything a page shows must be in it — images are in by their content-addressed
URL.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from pathlib import Path
from typing import Any

from campaigns.records import read_jsonl
from campaigns.statistics import bootstrap_mean
from review_site.assets import Assets
from review_site.plots import Plots
from publications.layout import FROZEN_TASK, PRIVACY
from review_site.sources import EVIDENCE, PUBLIC, CampaignInput, PublicationInput, Source, Taxonomy

VIEW_ORDER = ["front", "side", "top", "close"]
TEXT_ATTACHMENTS = {".md", ".txt", ".json", ".py", ".csv"}
MAX_TEXT = 200_000  # bytes of an attachment shown inline; larger ones are listed only
BOOTSTRAP = {"seed": 2026, "samples": 2000}  # per-task intervals; shown with the figures
# The bundled seeds' mutation tables under the grader before issue 33 (render truth), measured
# by bench/grader_cost.py --before-out: the task page shows before -> after.
MUTATION_BEFORE = Path(__file__).with_name("mutation_before.json")


@functools.cache
def _mutation_before_doc() -> dict:
    return json_load(MUTATION_BEFORE) if MUTATION_BEFORE.is_file() else {}


def mutation_before(task_id: str) -> dict | None:
    """The task's mutation table under the earlier grader ({grader, killed, applicable,
    survivors, operators}), or None when it was not measured (the file is read once)."""
    doc = _mutation_before_doc()
    entry = doc.get("tasks", {}).get(task_id)
    return None if entry is None else {"grader": doc.get("grader"), **entry}


def json_load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")


Pages = dict[str, tuple[str, dict]]  # path relative to the site root → (template, context)


def evidence_block(files: dict[str, str]) -> dict:
    """Group evidence files (name → URL) as the site shows them: the 4 views, then the frame
    strip, the contact sheet and the MP4 of an animated task."""
    views = sorted((n for n in files if n.endswith(".png") and not n.startswith("frame")),
                   key=lambda n: (VIEW_ORDER.index(n[:-4]) if n[:-4] in VIEW_ORDER else 99, n))
    return {
        "views": [{"name": n[:-4], "url": files[n]} for n in views if n != "frames_sheet.png"],
        "frames": [{"name": n[:-4], "url": files[n]} for n in sorted(files) if n.startswith("frame_")],
        "sheet": files.get("frames_sheet.png"),
        "videos": [files[n] for n in sorted(files) if n.endswith(".mp4")],
    }


def reference_evidence(pub: PublicationInput, assets: Assets) -> dict | None:
    names = [p for p in pub.files.under(EVIDENCE) if not p.endswith("manifest.json")]
    if not names:
        return None
    files = {p[len(EVIDENCE):]: assets.add_bytes(pub.files.read(p), p, pub.files.listed[p]["sha256"])
             for p in names}
    return evidence_block(files)


def renders(source: Source, ref_doc: dict | None, assets: Assets) -> dict | None:
    """A delivery's renders (a store tree), or None when none were kept or the store lacks them."""
    tree = source.blob(ref_doc)
    if tree is None:
        return None
    files = {}
    for rel, entry in source.store.tree_entries(tree).items():
        if rel.endswith((".png", ".mp4")):
            url = assets.add_blob(source.store.ref_for(entry["sha256"], entry["size"]), rel)
            if url:
                files[rel] = url
    return evidence_block(files) if files else None


def _json_link(source: Source, ref_doc: dict | None, assets: Assets, name: str) -> dict | None:
    if not ref_doc:
        return None
    ref = source.blob(ref_doc)
    url = assets.add_blob(ref, name + ".json") if ref else None
    return {"url": url, "sha256": ref_doc["sha256"], "size": ref_doc["size"]}


def trial_context(source: Source, assets: Assets, *, title: str, subtitle: str, row: dict,
                  back: dict) -> dict:
    """One trial, calibration sample or campaign attempt: its scores, criteria, VL answers,
    renders and the records behind them."""
    score = source.blob_json(row.get("score"))
    report = source.blob_json(row.get("report"))
    vl = (score or {}).get("vl") or source.blob_json(row.get("vl"))
    criteria = (score or report or {}).get("criteria") or row.get("criteria") or []
    answers = sorted(((vl or {}).get("answers") or {}).values(), key=lambda a: a.get("id", ""))
    return {
        "title": title, "subtitle": subtitle, "back": back,
        "row": {k: row.get(k) for k in ("trial_id", "config", "attempt", "label", "reward", "success",
                                        "rule_score", "vl_score", "failure", "exception", "timed_out",
                                        "judge", "cost", "kind", "expected", "met", "sample", "policy")},
        "criteria": [{k: c.get(k) for k in ("id", "requirement_id", "method", "weight", "core",
                                            "score", "passed", "detail")} for c in criteria],
        "vl": {"score": (vl or {}).get("vl_score"), "judge": (vl or {}).get("judge"),
               "missing_reason": (vl or {}).get("missing_reason"), "answers": answers} if vl else None,
        "renders": renders(source, row.get("renders"), assets),
        "links": {name: link for name, link in (
            ("delivery report", _json_link(source, row.get("report"), assets, "report")),
            ("score record", _json_link(source, row.get("score"), assets, "score")),
            ("VL answers", _json_link(source, row.get("vl"), assets, "vl")),
            ("trajectory (redacted ATIF)", _json_link(source, row.get("trajectory"), assets, "trajectory")),
        ) if link},
        "delivery": row.get("delivery"),
    }


def _interval(rewards: list[float]) -> dict | None:
    if not rewards:
        return None
    return dataclasses.asdict(bootstrap_mean(rewards, seed=BOOTSTRAP["seed"], samples=BOOTSTRAP["samples"]))


def task_pages(source: Source, pub: PublicationInput, assets: Assets, plots: Plots,
               taxonomy: Taxonomy, campaigns: list[CampaignInput], *, page: str | None = None,
               trials_dir: str | None = None) -> tuple[dict, Pages]:
    """The task page, a page per trial and calibration sample, and the task's index row.
    `page` and `trials_dir` place them elsewhere than `tasks/<task>.html` and `trials/<task>/`
    (a waiting task's review page beside its published one: review_site/reviews.py)."""
    p = pub.publication
    task_id = p["task_id"]
    files = pub.files
    task: Any = files.json("task/tests/task.json") or {}  # its ids may be absent: they then name nothing
    frozen = files.json(FROZEN_TASK) or {}
    calibration = files.json("review/calibration-report.json")
    evaluation = files.json("evaluation/report.json")
    admission = files.json("admission/admission-record.json") or {}
    trials = (read_jsonl(files.read("evaluation/trials.jsonl"))
              if "evaluation/trials.jsonl" in files.listed else [])
    grading = frozen.get("grading") or {}
    judged = calibration or {}  # before freezing (a pending review) the calibration report has the grading
    profile = grading.get("profile") or judged.get("scoring_profile") or task.get("scoring_profile") or {}
    threshold = (grading.get("verification") or {}).get("pass_threshold", judged.get("pass_threshold"))
    names = taxonomy.names
    group_id = taxonomy.group_of.get(task.get("workflow_primary"), "")
    page = page or f"tasks/{slug(task_id)}.html"
    trials_dir = trials_dir or f"trials/{slug(task_id)}"
    pages: Pages = {}
    back = {"url": "../../" + page, "text": task_id}

    trial_rows = []
    for t in trials:
        rel = f"{trials_dir}/{slug(t['config'])}-{t['attempt']}.html"
        pages[rel] = ("trial.html.j2", trial_context(
            source, assets, title=f"{task_id} · {t['config']} attempt {t['attempt']}",
            subtitle="stage 06 formal evaluation", row=t, back=back))
        trial_rows.append({**{k: t.get(k) for k in ("trial_id", "config", "attempt", "reward", "success",
                                                     "label", "failure")},
                           "url": "../" + rel, "renders": pages[rel][1]["renders"]})
    samples = []
    for s in (calibration or {}).get("samples", []):
        rel = f"{trials_dir}/calibration-{slug(s['sample'])}.html"
        pages[rel] = ("trial.html.j2", trial_context(
            source, assets, title=f"{task_id} · calibration sample {s['sample']}",
            subtitle=f"05 review: expected {s.get('expected')}", row=s, back=back))
        samples.append({**{k: s.get(k) for k in ("sample", "kind", "policy", "rule_score", "vl_score",
                                                  "reward", "success", "expected", "met", "margin",
                                                  "cap_applied")}, "url": "../" + rel})

    metrics = []
    for m in (evaluation or {}).get("metrics", []):
        rewards = [t["reward"] for t in trials if t["config"] == m["config"] and t["reward"] is not None]
        metrics.append({**m, "interval": _interval(rewards)})
    series = [{"config": m["config"],
               "rewards": [t["reward"] for t in trials if t["config"] == m["config"]]} for m in metrics]
    plot = None
    if series or samples:
        plot = "../" + plots.score_distribution(
            series, [{"kind": s["kind"], "reward": s["reward"]} for s in samples], threshold)

    chosen = []  # per configuration, its first delivery with renders, beside the reference
    for m in metrics:
        first = next((r for r in trial_rows if r["config"] == m["config"] and r["renders"]), None)
        if first:
            chosen.append({"title": f"{m['config']} attempt {first['attempt']}", "url": first["url"],
                           "reward": first["reward"], "evidence": first["renders"]})
    for r in trial_rows:
        del r["renders"]  # shown on the trial's own page

    attachments = []
    for rel in files.under(PUBLIC):
        entry = files.listed[rel]
        name = rel[len(PUBLIC):]
        shown = Path(rel).suffix in TEXT_ATTACHMENTS and entry["size"] <= MAX_TEXT
        attachments.append({
            "name": name, "size": entry["size"], "sha256": entry["sha256"],
            "text": files.read(rel).decode("utf-8", "replace") if shown else None,
        })

    in_campaigns = [{"campaign_id": c.campaign_id, "url": f"../campaigns/{slug(c.campaign_id)}.html",
                     "trials": sum(1 for r in c.records if r["task_id"] == task_id)}
                    for c in campaigns if any(r["task_id"] == task_id for r in c.records)]
    summary = [{"config": m["config"], "avg_at_k": m.get("avg_at_k"), "pass_at_k": m.get("pass_at_k"),
                "k": m.get("k")} for m in metrics]
    context = {
        "task_id": task_id, "title": task.get("title", ""), "publication": {
            **{k: p.get(k) for k in ("publication_id", "task_version", "revision",
                                     "content_sha256", "pipeline_ref", "dataset", "previous")},
            "published_at": pub.files.published_at,
            "link": None if pub.link is None else {k: getattr(pub.link, k) for k in (
                "sequence", "previous_link_sha256", "records_sha256")}},
        "publication_sha256": pub.sha256, "folder": source.objects.location(pub.folder),
        "object_key": pub.folder, "split": pub.split,
        "workflow": {"id": task.get("workflow_primary"), "name": names.get(task.get("workflow_primary"), "")},
        "group": {"id": group_id, "name": names.get(group_id, "")},
        "profession": {"id": task.get("profession_primary"), "name": names.get(task.get("profession_primary"), "")},
        "profile": profile, "judge": grading.get("judge", judged.get("judge")), "threshold": threshold,
        "verifier_version": frozen.get("verifier_version", judged.get("verifier_version")),
        "weights": (grading.get("verification") or {}).get("weights"),
        "instruction": files.read("task/instruction.md").decode("utf-8", "replace")
        if "task/instruction.md" in files.listed else "",
        "attachments": attachments,
        "reference": reference_evidence(pub, assets), "deliveries": chosen,
        "calibration": None if calibration is None else {
            k: calibration.get(k) for k in ("margin", "required_margin", "min_good", "max_bad",
                                            "pass_threshold", "reference_min", "passed", "misses",
                                            "mutations", "gaming")},
        "mutations_before": mutation_before(task_id),
        "samples": samples, "metrics": metrics, "bootstrap": BOOTSTRAP,
        "input_reward": frozen.get("input_reward"), "plot": plot, "trials": trial_rows,
        "campaigns": in_campaigns,
        "provenance": admission.get("provenance"), "authoring": admission.get("authoring"),
        "seed_id": admission.get("seed_id"),
        "privacy": (files.json(PRIVACY) or {}).get("export"),
        "files": [{"path": f["path"], "size": f["size"], "sha256": f["sha256"]}
                  for _, f in sorted(pub.files.listed.items())],
        "export_command": f"arkevo export task --publication {pub.folder} --out {task_id}.zip",
    }
    pages[page] = ("task.html.j2", context)
    row = {
        "task_id": task_id, "title": context["title"], "url": page, "split": pub.split or "",
        "group": context["group"], "profession": context["profession"], "workflow": context["workflow"],
        "profile": f"{profile.get('profile_id', '')}@{profile.get('profile_version', '')}",
        "margin": (calibration or {}).get("margin"), "calibrated": (calibration or {}).get("passed"),
        "summary": summary, "publication_id": p["publication_id"], "published_at": pub.files.published_at,
        # the lineage root: a seed family's instances (and derived tasks) share it with their root
        "family": (admission.get("lineage") or {}).get("root_seed") or admission.get("seed_id") or task_id,
    }
    return row, pages


def campaign_page(source: Source, campaign: CampaignInput, assets: Assets, plots: Plots) -> Pages:
    report = campaign.report
    cid = slug(campaign.campaign_id)
    page = f"campaigns/{cid}.html"
    back = {"url": f"../../{page}", "text": campaign.campaign_id}
    pages: Pages = {}
    trials = []
    for r in campaign.records:
        suffix = "-recovered" if r.get("_recovered") else ""
        rel = f"trials/{cid}/{slug(r['trial_id'])}{suffix}.html"
        pages[rel] = ("trial.html.j2", trial_context(
            source, assets, title=r["trial_id"] + (" (recovered)" if suffix else ""),
            subtitle=f"campaign {campaign.campaign_id}", row=r, back=back))
        trials.append({**{k: r.get(k) for k in ("trial_id", "task_id", "config", "attempt", "reward",
                                                 "success", "failure", "cost")},
                       "recovered": bool(suffix), "url": "../" + rel})
    runs = []
    for name in ("original", "recovered"):
        run = report.get(name)
        if not run:
            continue
        groups = [{**g, "plot": "../" + plots.campaign_bars(
            {"configs": [{k: c.get(k) for k in ("config", "avg_at_k", "pass_at_k")} for c in g["configs"]]})}
            for g in run["groups"]]
        runs.append({"name": name, **{k: v for k, v in run.items() if k != "groups"}, "groups": groups})
    pages[page] = ("campaign.html.j2", {
        "campaign_id": campaign.campaign_id, "mode": report.get("mode"),
        "source_text": report.get("source_text"), "configs": report.get("configs", []),
        "statistics": report.get("statistics"), "runs": runs, "trials": trials,
        "plan_sha256": (report.get("plan") or {}).get("sha256"),
        "tasks": [{"task_id": t["task_id"], "url": f"../tasks/{slug(t['task_id'])}.html"}
                  for t in campaign.plan["tasks"]],
    })
    return pages
