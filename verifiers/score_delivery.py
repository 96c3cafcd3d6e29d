"""Score one delivery against a task's rubric -- for people writing tasks.

    python -m verifiers.score_delivery --blend result.blend --task-dir seeds/table-model/draft \\
        [--profile blender-70-30] [--judge image-metric|model|none] [--out DIR] \\
        [--engine BLENDER_WORKBENCH|CYCLES] [--cache DIR] [--no-evidence] [--no-sandbox]

Prints a per-criterion table (and the VL answers and the total), and writes into ``--out``
(default: ``<blend stem>.arkevo/`` next to the .blend): ``score.json`` (the score record),
``report.json`` (the rule probe report) and ``evidence/`` (the evidence renders).  The
profile defaults to the task's own; ``--profile`` grades it under another in memory (the
task files are not changed).  ``--judge model`` calls the OpenAI-compatible endpoint named by
``ARKEVO_VL_BASE_URL`` / ``ARKEVO_VL_MODEL`` / ``ARKEVO_VL_API_KEY`` at ``ARKEVO_LLM_RPM``.
Renders are cached (``--cache``, default ``ARKEVO_EVIDENCE_CACHE`` or var/cache/evidence):
scoring the same file again renders nothing.
Blender opens the delivery, and runs the seed's build script, the reference solution and the
task's probes, in the trial sandbox; ``--no-sandbox`` (or ``ARKEVO_TRIAL_BACKEND=local``) runs
them as plain subprocesses, for your own code on your own machine.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from sandbox.script_run import LOCAL, LaunchFailed, SandboxUnavailable, ScriptIsolation, SlotUnavailable
from blender.runner import ScriptFailed
from verifiers.evidence import EvidenceCache, default_cache_root
from verifiers.profiles import get_profile, profile_of_task
from verifiers.scorer import ScoreOptions, Scorer, TaskBundle


def short_value(value, limit: int = 48, separators: tuple[str, str] = (",", ":")) -> str:
    """A measured or expected value as one table cell: JSON, cut at `limit` characters."""
    text = value if isinstance(value, str) else json.dumps(value, separators=separators)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def criteria_table(record: dict) -> Table:
    t = Table(title=f"rule criteria — {record['task_id']} ({record['profile']['profile_id']}@"
                    f"{record['profile']['profile_version']})", show_lines=False)
    for col in ("id", "method", "w", "core", "score", "pass", "measured", "expected", "detail"):
        t.add_column(col, overflow="fold")
    for c in record["criteria"]:
        ok = "[green]yes[/]" if c["passed"] else "[red]no[/]"
        t.add_row(c["id"], c["method"], f"{c['weight']:.2f}", "*" if c["core"] else "", f"{c['score']:.3f}", ok,
                  short_value(c["measured"]), short_value(c["expected"]), short_value(c["detail"], 70))
    return t


def vl_table(record: dict) -> Table | None:
    vl = record.get("vl")
    if not vl:
        return None
    judge = vl["judge"] or {}
    t = Table(title=f"VL — judge {judge.get('id')} ({judge.get('label', '')})")
    for col in ("question", "score", "reason / error"):
        t.add_column(col, overflow="fold")
    for qid, a in sorted(vl["answers"].items()):
        score = "-" if a["score"] is None else f"{a['score']:.3f}"
        t.add_row(qid, score, a.get("error") or a.get("reason") or "")
    return t


def totals_line(record: dict) -> str:
    # floored, never rounded: 0.9996 with a criterion failed must not print as 1.000 (red team 21)
    parts = [f"rule {math.floor(record['rule_score'] * 1000) / 1000:.3f}"]
    if record.get("vl_score") is not None:
        parts.append(f"VL {record['vl_score']:.3f}" + (" (A-gate: 0)" if record.get("vl_gated") else ""))
    if record.get("rule_points") is not None:
        parts.append(f"points {record['rule_points']:.1f} + {record.get('vl_points') or 0:.1f}")
    total = "null (" + str(record["total_null_reason"]) + ")" if record["total"] is None else f"{record['total']:.3f}"
    parts.append(f"total [bold]{total}[/]")
    if record.get("cap_applied") is not None:
        parts.append(f"capped at {record['cap_applied']} (core failed: {', '.join(record['core_failed'])})")
    parts.append("success [green]yes[/]" if record["success"] else "success [red]no[/]")
    return " · ".join(parts)


# What stops a run before there is anything to score: the author's script, or the sandbox.
RUN_FAILURES = (ScriptFailed, SandboxUnavailable, LaunchFailed, SlotUnavailable)


def print_run_failure(console: Console, exc: Exception) -> int:
    """One line per failing script of the author (file: exception), or why the sandbox could
    not start (infrastructure, with the switch); the exit code."""
    if isinstance(exc, ScriptFailed):
        for file, exception in exc.problems:
            console.print(f"[red]error[/] {escape(f'{file}: {exception}')}", highlight=False, soft_wrap=True)
    else:
        console.print(f"[red]infrastructure[/] the sandbox could not start: {escape(str(exc))}",
                      highlight=False, soft_wrap=True)
    return 1


class BadInput(Exception):
    """What was given cannot be graded (exit 2): no task draft there, an unknown profile."""


def load_bundle(task_dir: Path) -> TaskBundle:
    if not (task_dir / "task.json").is_file():
        raise BadInput(f"no task.json in {task_dir}")
    try:
        return TaskBundle.load(task_dir)
    except (OSError, ValueError) as exc:  # an unreadable or malformed draft file
        raise BadInput(f"{task_dir}: {exc}") from exc


def profile_by_ref(ref: str):
    try:
        return get_profile(ref)
    except KeyError as exc:
        raise BadInput(exc.args[0]) from exc


EXIT_CODES = """\
exit codes:
  0  scored, whatever the score (a missing or broken --blend is scored, not refused)
  1  verifier failure: a script of the task raises, or the sandbox cannot start
  2  bad usage or input: an unknown option, no task.json in --task-dir, an unknown --profile"""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m verifiers.score_delivery", description=__doc__,
                                 epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blend", required=True, type=Path)
    ap.add_argument("--task-dir", required=True, type=Path, help="the task draft folder: seeds/<seed>/draft")
    ap.add_argument("--profile", default=None, help="scoring profile id[@version] (default: the task's)")
    ap.add_argument("--judge", default="image-metric", choices=("image-metric", "model", "none"))
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--engine", default=None, help="evidence engine (BLENDER_WORKBENCH, CYCLES, ...)")
    ap.add_argument("--cache", type=Path, default=None, help="evidence cache folder")
    ap.add_argument("--no-evidence", action="store_true", help="skip evidence renders (rule-only profiles)")
    ap.add_argument("--no-sandbox", action="store_true",
                    help="run Blender unisolated (your own code and deliveries, your own machine)")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None, *, sandbox: ScriptIsolation = None) -> int:
    args = parse_args(argv)
    console = Console(width=None if sys.stdout.isatty() else 160)
    try:
        bundle = load_bundle(args.task_dir)
        profile = profile_by_ref(args.profile) if args.profile else profile_of_task(bundle.task)
    except BadInput as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        return 2
    judge = None if args.judge == "none" else args.judge
    vl_client = None
    if judge == "model" and profile.uses_vl:
        from modelapi.rate_budget import LocalBudget
        from modelapi.retry import SessionRetry
        from verifiers.vl_model_judge import JudgeSettings, OpenAIVisionJudge
        # Outside Temporal the judge retries its own requests, within this process's budget.
        vl_client = OpenAIVisionJudge(JudgeSettings.from_env(), LocalBudget(), retry=SessionRetry(max_attempts=5))
    out = args.out or args.blend.with_name(args.blend.stem + ".arkevo")
    out.mkdir(parents=True, exist_ok=True)
    cache = EvidenceCache(args.cache or default_cache_root())
    options = ScoreOptions(judge=judge, engine=args.engine, render=not args.no_evidence)
    scorer = Scorer(bundle, profile, cache=cache, options=options, vl_client=vl_client,
                    sandbox=LOCAL if args.no_sandbox else sandbox)
    started = time.monotonic()
    try:
        # A spinner on stderr (shown on a terminal only): stdout keeps the tables alone.
        with Console(stderr=True).status(f"scoring {escape(str(args.blend))}"):
            record = scorer.score(args.blend, workdir=out)
    except RUN_FAILURES as exc:
        return print_run_failure(console, exc)
    seconds = time.monotonic() - started
    evidence_dir = out / "evidence"
    if record.get("evidence") and not record["evidence"].get("error"):
        from verifiers.evidence import Evidence
        ev = cache.lookup(record["evidence"]["key"])
        if isinstance(ev, Evidence):
            ev.copy_to(evidence_dir)
    (out / "score.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")

    console.print(criteria_table(record))
    if (t := vl_table(record)) is not None:
        console.print(t)
    console.print(totals_line(record))
    ev = record.get("evidence")
    if ev:
        c = cache.counters
        console.print(f"evidence: {len(ev['files'])} file(s), cache {ev['cache']} (key {ev['key'][:12]}…), "
                      f"renders this run {c.renders}, cache hits {c.hits} -> {evidence_dir}")
    console.print(f"verifier {record['verifier_version']} · {seconds:.1f}s · {out / 'score.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
