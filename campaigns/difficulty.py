"""A campaign's difficulty record over a dataset revision (docs/datasets.md "Difficulty bands"):
per task and config, how many of the k planned attempts were scored and how many solved it,
with the solve rate's Wilson score interval. Infrastructure exceptions are not scored — never a
0 — so an outage cannot make a task look hard. Scripted configs keep their label ("scripted
policy — not a model result"): a band measured by them says nothing about models."""

from __future__ import annotations

import math

from campaigns.records import is_infra
from contracts.validation import build_document

CONFIDENCE = 0.95
Z = 1.959963984540054  # the standard normal quantile for a two-sided 95 % interval


def wilson(solved: int, scored: int, z: float = Z) -> tuple[float, float] | None:
    """The Wilson score interval of solved/scored; None when nothing was scored. Unlike the
    normal approximation it stays inside [0, 1] and is not a point at 0 or k solves."""
    if scored == 0:
        return None
    p = solved / scored
    denom = 1 + z * z / scored
    centre = (p + z * z / (2 * scored)) / denom
    half = z * math.sqrt(p * (1 - p) / scored + z * z / (4 * scored * scored)) / denom
    return max(0.0, round(centre - half, 6)), min(1.0, round(centre + half, 6))


def config_counts(config: dict, records: list[dict]) -> dict:
    """One config's attempts at one task: `records` are that (task, config)'s records."""
    scored = [r for r in records if not is_infra(r) and r.get("success") is not None]
    solved = sum(1 for r in scored if r["success"])
    interval = wilson(solved, len(scored))
    return {
        "config_id": config["config_id"], "kind": config["kind"], "label": config["label"],
        "k": config["attempts"], "recorded": len(records), "scored": len(scored), "solved": solved,
        "infra_exceptions": sum(1 for r in records if is_infra(r)),
        "solve_rate": round(solved / len(scored), 6) if scored else None,
        "interval": None if interval is None else {"method": "wilson", "confidence": CONFIDENCE,
                                                   "low": interval[0], "high": interval[1]},
    }


def difficulty_record(plan: dict, plan_sha256: str, records: list[dict],
                      recovery_round: int | None) -> dict | None:
    """The record for a campaign over a dataset revision (None for one over loose
    publications): `records` as they stand (a recovery's set replaces the original's)."""
    source = plan["source"].get("dataset")
    if not source:
        return None
    by_pair: dict[tuple[str, str], list[dict]] = {}
    for r in records:
        by_pair.setdefault((r["task_id"], r["config"]), []).append(r)
    doc = {
        "campaign_id": plan["campaign_id"],
        "namespace": source["namespace"], "revision": source["revision"],
        "target": source.get("target", "split"), "split": source["split"],
        "plan_sha256": plan_sha256, "recovery_round": recovery_round,
        "tasks": [{
            "task_id": t["task_id"], "task_version": t["task_version"],
            "publication_id": t["publication_id"], "publication_sha256": t["publication_sha256"],
            "verifier_version": t["verifier_version"],
            "configs": [config_counts(c, by_pair.get((t["task_id"], c["config_id"]), []))
                        for c in plan["configs"]],
        } for t in plan["tasks"]],
    }
    return build_document("difficulty-record", doc, f"difficulty/{plan['campaign_id']}.json")
