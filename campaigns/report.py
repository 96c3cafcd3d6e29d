"""A campaign's figures (docs/campaigns.md): per configuration avg@k / pass@k / reward_delta with
seeded bootstrap intervals, per task, paired comparisons, exceptions and cost — computed from a
set of trial records and the plan, and rendered as report.json and report.md.

The original run and a recovery's set are two sets of records, each with its own figures; the
report shows them side by side and never merges them. Grades from another verifier version
than the plan registered for a task, or from several scoring profiles, are never pooled:
figures are grouped by scoring profile and a mismatch is `IncomparableFigures`.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations
from pathlib import Path
from typing import cast

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from campaigns.records import failure_of, is_infra
from campaigns.statistics import (IncomparableFigures, check_comparable, compare,
                                  config_figures, group_by_profile, task_score)

COST_FIELDS = ("model_calls", "input_tokens", "output_tokens", "agent_steps", "wall_sec",
               "agent_sec", "sandbox_cpu_sec", "gpu_sec")
TEMPLATES = Path(__file__).resolve().parent / "templates"


def _profile_key(profile: dict) -> str:
    return f"{profile['profile_id']}@{profile['profile_version']}"


def check_against_plan(plan: dict, records: list[dict]) -> None:
    """Every record was graded as the plan registered its task: same verifier version."""
    registered = {t["task_id"]: t["verifier_version"] for t in plan["tasks"]}
    for r in records:
        if r["verifier_version"] != registered.get(r["task_id"]):
            raise IncomparableFigures(
                f"trial {r['trial_id']}: task {r['task_id']} graded by verifier "
                f"{r['verifier_version']}, the plan registered {registered.get(r['task_id'])}; "
                "grades of different verifier versions are never pooled")
    # Per profile: a campaign may span profiles (figures are grouped by profile below, never
    # pooled); inside one, every task's records share one verifier version.
    for group in group_by_profile(records).values():
        check_comparable(group)


def cost_sum(records: list[dict]) -> dict:
    total: dict = {"trials": len(records)}
    for name in COST_FIELDS:
        values = [r["cost"][name] for r in records if r.get("cost") and r["cost"][name] is not None]
        total[name] = round(sum(values), 3) if values else None
    return total


def figures(plan: dict, records: list[dict]) -> dict:
    check_against_plan(plan, records)
    seed = plan["statistics"]["seed"]
    samples = plan["statistics"]["bootstrap_samples"]
    attempts = {c["config_id"]: c["attempts"] for c in plan["configs"]}
    config_order = [c["config_id"] for c in plan["configs"]]
    inputs = {t["task_id"]: t["input_reward"] for t in plan["tasks"]}
    profile_of = {t["task_id"]: _profile_key(t["scoring_profile"]) for t in plan["tasks"]}

    groups = []
    by_profile = group_by_profile(records)
    # Every profile the plan has, even one whose trials all failed to record, is a group.
    for profile in dict.fromkeys(profile_of[t["task_id"]] for t in plan["tasks"]):
        mine = by_profile.get(profile, [])
        tasks = sorted(t for t, p in profile_of.items() if p == profile)
        attempts_of: dict[tuple[str, str], list[dict]] = defaultdict(list)
        for r in mine:
            attempts_of[(r["config"], r["task_id"])].append(r)
        scores = {c: {t: task_score([r["reward"] for r in attempts_of[(c, t)]],
                                    [r["success"] for r in attempts_of[(c, t)]], attempts[c])
                      for t in tasks} for c in config_order}
        configs = []
        for c in config_order:
            f = config_figures(c, scores[c], {t: inputs[t] for t in tasks}, seed=seed, samples=samples)
            configs.append(f.as_dict())
        per_task = [{"task_id": t, "config": c, "input_reward": inputs[t], **scores[c][t].as_dict(),
                     "reward_delta": (None if scores[c][t].avg is None or inputs[t] is None
                                      else scores[c][t].avg - inputs[t])}
                    for t in tasks for c in config_order]
        pairs = [compare(a, scores[a], b, scores[b], seed=seed, samples=samples).as_dict()
                 for a, b in combinations(config_order, 2)]
        groups.append({"scoring_profile": profile, "tasks": tasks, "configs": configs,
                       "per_task": per_task, "pairs": pairs})

    exceptions = [{"trial_id": r["trial_id"], "config": r["config"], "task_id": r["task_id"],
                   "type": cast(dict, failure_of(r))["type"], "message": cast(dict, failure_of(r))["message"]}
                  for r in records if is_infra(r)]
    kinds = {k: sum(1 for r in records if r["failure"] and r["failure"]["kind"] == k)
             for k in ("infra", "solver", "author")}
    cost = {"campaign": cost_sum(records),
            "configs": {c: cost_sum([r for r in records if r["config"] == c]) for c in config_order}}
    return {"trials": len(records), "planned": len(plan["trials"]),
            "scored": sum(1 for r in records if r["reward"] is not None),
            "failures": kinds, "exceptions": exceptions, "groups": groups, "cost": cost}


def _fmt(value, digits: int = 3) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _interval(i: dict | None) -> str:
    if not i or i["mean"] is None:
        return "—"
    return f"{i['mean']:.3f} [{i['low']:.3f}, {i['high']:.3f}] n={i['n']}"


def render_markdown(report: dict) -> str:
    env = Environment(loader=FileSystemLoader(TEMPLATES), undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["f"] = _fmt
    env.filters["ci"] = _interval
    return env.get_template("report.md.j2").render(r=report)
